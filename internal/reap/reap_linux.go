package reap

import (
	"bytes"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

func becomeSubreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// proc is one entry of /proc: its parent and whether it is a zombie.
type proc struct {
	ppid   int
	zombie bool
}

// tableReads counts the reads of /proc by table.
var tableReads atomic.Int64

// table reads the parent of every process from /proc/<pid>/stat.
func table() (map[int]proc, error) {
	tableReads.Add(1)
	d, err := os.Open("/proc")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	out := make(map[int]proc, len(names))
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + n + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		// "pid (comm) state ppid ...": comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) < 2 {
			continue
		}
		ppid, err := strconv.Atoi(string(f[1]))
		if err != nil {
			continue
		}
		out[pid] = proc{ppid: ppid, zombie: string(f[0]) == "Z" || string(f[0]) == "X"}
	}
	return out, nil
}

// strays lists this process's descendants outside the subtrees of the
// running children, parents before children.
func strays(running map[int]bool) ([]int, error) {
	t, err := table()
	if err != nil {
		return nil, err
	}
	return straysIn(t, running), nil
}

// straysIn is strays in the process table t.
func straysIn(t map[int]proc, running map[int]bool) []int {
	kids := map[int][]int{}
	for pid, p := range t {
		kids[p.ppid] = append(kids[p.ppid], pid)
	}
	var out []int
	queue := []int{os.Getpid()}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, k := range kids[pid] {
			if running[k] {
				continue
			}
			out = append(out, k)
			queue = append(queue, k)
		}
	}
	return out
}

// sweep kills every stray and reaps the ones re-parented to us, until
// none is left or a bound of attempts is spent. Only strays are waited
// for, by pid: os/exec still waits for the registered children.
func sweep(running map[int]bool) error {
	self := os.Getpid()
	var last []int
	for attempt := 0; attempt < 200; attempt++ {
		t, err := table()
		if err != nil {
			return err
		}
		s := straysIn(t, running)
		if len(s) == 0 {
			return nil
		}
		for _, pid := range s {
			if !t[pid].zombie {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		for _, pid := range s {
			if t[pid].ppid == self {
				var ws syscall.WaitStatus
				_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
			}
		}
		last = s
		if attempt > 0 {
			time.Sleep(5 * time.Millisecond)
		}
	}
	slices.Sort(last)
	return &SurvivorError{Pids: last}
}
