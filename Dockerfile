# review-loop in a container: the same binary the composite action runs.
#
#   docker build --build-arg VERSION=v1.2.3 -t review-loop .
#   docker run --rm -e GITHUB_TOKEN -e GITHUB_EVENT_NAME -e GITHUB_EVENT_PATH ... review-loop
#
# Build stage: a static binary (no cgo), reproducible paths, version stamped.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" \
      -o /out/review-loop ./cmd/review-loop

# Final stage: alpine rather than gcr.io/distroless/static-debian12:nonroot.
# A cycle runs git (fetch, checkout, commit, push) as a child process, and
# distroless/static has no git and no shell to add one; alpine adds git and
# CA certificates in a few megabytes. The process runs as an unprivileged
# user, never root.
FROM alpine:3.22
RUN apk add --no-cache git ca-certificates \
 && addgroup -S -g 65532 nonroot \
 && adduser -S -D -H -u 65532 -G nonroot -h /home/nonroot nonroot \
 && mkdir -p /home/nonroot && chown nonroot:nonroot /home/nonroot \
 # Workspaces mounted from a runner are owned by another uid; let git use them.
 && git config --system --add safe.directory '*'
COPY --from=build /out/review-loop /review-loop
USER 65532:65532
ENV HOME=/home/nonroot
ENTRYPOINT ["/review-loop"]
CMD ["cycle"]
