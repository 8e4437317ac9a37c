package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is a daemon started by routegen, in its own process group.
type proc struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

var (
	procsMu sync.Mutex
	procs   = map[*proc]bool{}
)

// startProc starts a daemon with stdout and stderr appended to logPath.
func startProc(name, logPath string, argv ...string) (*proc, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if verbose {
		fmt.Fprintf(os.Stderr, "routegen: start %s: %s\n", name, strings.Join(argv, " "))
	}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, done: make(chan struct{})}
	procsMu.Lock()
	procs[p] = true
	procsMu.Unlock()
	go func() {
		p.err = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	return p, nil
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop terminates the process group: SIGTERM, then SIGKILL after 5s.
func (p *proc) stop() {
	procsMu.Lock()
	delete(procs, p)
	procsMu.Unlock()
	pgid := p.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.done
	}
	// Reap anything left in the group (daemons that forked).
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// stopAll stops every process still running (used on signals and errors).
func stopAll() {
	procsMu.Lock()
	var l []*proc
	for p := range procs {
		l = append(l, p)
	}
	procsMu.Unlock()
	for _, p := range l {
		p.stop()
	}
}

// run executes a command and returns its stdout.
func run(ctx context.Context, argv ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}

// poll calls fn every 250ms until it reports done, fails, or timeout passes.
// fn returns a status used in the timeout error.
func poll(ctx context.Context, timeout time.Duration, what string, fn func() (bool, string, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	status := ""
	for {
		done, st, err := fn()
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if done {
			return nil
		}
		status = st
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: timed out after %s: %s", what, timeout, status)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// freePort returns a TCP port that is currently free on 127.0.0.1.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

var errExited = errors.New("daemon exited")

// alive returns an error if p has exited, pointing at its log.
func (p *proc) alive(logPath string) error {
	if p.exited() {
		b, _ := os.ReadFile(logPath)
		s := string(b)
		if len(s) > 2000 {
			s = s[len(s)-2000:]
		}
		return fmt.Errorf("%s: %w (%v); log %s:\n%s", p.name, errExited, p.err, logPath, s)
	}
	return nil
}

// whenUp waits until the daemon is alive and ready (ready says what it
// answered), then starts the scenario's speakers against it.
func whenUp(ctx context.Context, p *proc, logPath, what string, spec *Spec, port int,
	ready func() (bool, string)) (*speakers, error) {
	err := poll(ctx, 20*time.Second, what, func() (bool, string, error) {
		if err := p.alive(logPath); err != nil {
			return false, "", err
		}
		ok, said := ready()
		return ok, said, nil
	})
	if err != nil {
		return nil, err
	}
	return startSpeakers(ctx, spec, port)
}
