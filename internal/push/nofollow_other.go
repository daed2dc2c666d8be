//go:build !unix

package push

// noFollow is nothing where the system has no O_NOFOLLOW; readOne's
// Lstat of the path refuses a symbolic link there.
const noFollow = 0
