// Package packaging holds no code: its tests check the repository's
// packaging against the real binary. `make install` installs a working
// sharevat; the Dockerfile keeps its invariants (a Go builder stage and a
// minimal runtime stage, a static trimmed build, a non-root user, the data
// directory a volume the user owns, listening beyond the container's
// loopback on the exposed port, a healthcheck on /healthz in exec form,
// only real SHAREVAT_* settings); .dockerignore drops no tracked file; and
// docs/sharevat.service passes `systemd-analyze verify` where systemd is
// installed. See docs/deploy.md.
package packaging
