package main

import (
	"log/slog"
	"os"

	"github.com/osrg/gobgp/v4/pkg/server"
)

// quietLogger drops the GoBGP speaker's logs, errors excepted (to stderr).
func quietLogger() server.ServerOption {
	lv := &slog.LevelVar{}
	lv.Set(slog.LevelError)
	return server.LoggerOption(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: lv})), lv)
}
