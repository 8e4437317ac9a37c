package main

import "github.com/osrg/gobgp/v3/pkg/log"

// quietLogger drops the GoBGP speaker's logs (warnings and errors excepted).
type quietLogger struct{}

func (quietLogger) Panic(msg string, f log.Fields) { panic(msg) }
func (quietLogger) Fatal(msg string, f log.Fields) { panic(msg) }
func (quietLogger) Error(msg string, f log.Fields) { println("gobgp speaker:", msg) }
func (quietLogger) Warn(msg string, f log.Fields)  {}
func (quietLogger) Info(msg string, f log.Fields)  {}
func (quietLogger) Debug(msg string, f log.Fields) {}
func (quietLogger) SetLevel(log.LogLevel)          {}
func (quietLogger) GetLevel() log.LogLevel         { return log.ErrorLevel }
