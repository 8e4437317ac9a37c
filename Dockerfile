# routewarden: a static binary on a distroless base, running as non-root.
# Images are built by the release pipeline elsewhere (this repository's machines have no Docker engine):
#   docker build -t ghcr.io/routewarden/routewarden:$(git describe --tags) \
#     --build-arg VERSION=$(git describe --tags) --build-arg COMMIT=$(git rev-parse HEAD) \
#     --build-arg DATE=$(date -u +%Y-%m-%dT%H:%M:%SZ) .
# `routewarden version` prints VERSION, COMMIT and DATE (and the Go and GoBGP versions).
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=""
ARG DATE=""
RUN CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT} -X main.date=${DATE}" \
      -o /out/routewarden ./cmd/routewarden
# A non-root process gets no ambient capabilities from containerd or CRI-O: to bind BGP's port 179 the binary
# itself must carry cap_net_bind_service (then the pod must add NET_BIND_SERVICE, or the binary will not start).
# The default image needs no capability and listens on 1179 (the chart's BGP Service maps 179 to it).
ARG NET_BIND_SERVICE=false
RUN if [ "$NET_BIND_SERVICE" = true ]; then \
      apt-get update && apt-get install -y --no-install-recommends libcap2-bin && \
      setcap cap_net_bind_service=+ep /out/routewarden; fi

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/routewarden /usr/local/bin/routewarden
USER 65532:65532
# 9479: metrics and API; 1179 (the chart's default bgp.listenPort): BGP.
EXPOSE 9479 1179
ENTRYPOINT ["/usr/local/bin/routewarden"]
CMD ["run", "--config", "/etc/routewarden/routewarden.yaml"]
