# routewarden: a static binary on a distroless base, running as non-root.
# Images are built by the release pipeline elsewhere (this repository's machines have no Docker engine):
#   docker build -t ghcr.io/routewarden/routewarden:$(git describe --tags) .
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/routewarden ./cmd/routewarden

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/routewarden /usr/local/bin/routewarden
USER 65532:65532
# 9479: metrics and API; 179 (or the configured bgp.listenPort): BGP. Binding 179 needs NET_BIND_SERVICE.
EXPOSE 9479 179
ENTRYPOINT ["/usr/local/bin/routewarden"]
CMD ["run", "--config", "/etc/routewarden/routewarden.yaml"]
