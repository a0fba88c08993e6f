# syntax=docker/dockerfile:1
#
# sharevat in a container: a static binary on distroless, run as a
# non-root user, data in the /data volume, listening on port 7420 of every
# interface of the container. docs/deploy.md tells how to run it.
#
#   make docker            # or: docker build -t sharevat .
#   docker run -d --name sharevat -p 127.0.0.1:7420:7420 -v sharevat-data:/data sharevat
#
# `make docker` builds it tagged sharevat:<version> and stamps the binary
# with the same version and commit (--build-arg VERSION and COMMIT, read
# by internal/version; `sharevat version` prints them). Without them the
# binary falls back on what go build records: from the .git the context
# includes (see .dockerignore), a pseudo-version and the revision; from a
# tree without .git, nothing ("(devel)"). Where git cannot read .git (a
# git worktree, whose .git is a file pointing outside the context),
# build with --build-arg BUILDVCS=false.

ARG GO_VERSION=1.26.8

FROM --platform=$BUILDPLATFORM golang:${GO_VERSION}-trixie AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG TARGETOS TARGETARCH
ARG BUILDVCS=auto
ARG VERSION= COMMIT=
RUN CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH \
    go build -trimpath -buildvcs=$BUILDVCS \
      -ldflags="-s -w -X github.com/sharevat/sharevat/internal/version.version=$VERSION -X github.com/sharevat/sharevat/internal/version.commit=$COMMIT" \
      -o /out/sharevat ./cmd/sharevat
# The data directory, 0700 and owned by the runtime user: a new named
# volume mounted on /data starts as a copy of it.
RUN install -d -m 0700 -o 65532 -g 65532 /out/root/data

FROM gcr.io/distroless/static-debian13:nonroot
COPY --from=build /out/sharevat /usr/local/bin/sharevat
COPY --from=build --chown=65532:65532 /out/root/ /
# distroless's "nonroot" user.
USER 65532:65532
# Every serve flag can be set as SHAREVAT_<FLAG> (docker run -e …); the
# command line wins over the environment.
ENV SHAREVAT_LISTEN=0.0.0.0:7420 \
    SHAREVAT_DATA=/data \
    SHAREVAT_LOG_FORMAT=json
VOLUME ["/data"]
EXPOSE 7420
# The image has no shell, curl or wget: sharevat checks its own /healthz.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["/usr/local/bin/sharevat", "health", "--url", "http://127.0.0.1:7420/healthz"]
ENTRYPOINT ["/usr/local/bin/sharevat"]
CMD ["serve"]
