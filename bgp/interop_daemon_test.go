package bgp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// daemon is a routing daemon run by a test, in its own process group, with
// stdout and stderr in a log file; it is stopped when the test ends.
type daemon struct {
	name, logPath string
	cmd           *exec.Cmd
	done          chan struct{}
	err           error
}

func startDaemon(t testing.TB, name, logPath string, argv ...string) *daemon {
	t.Helper()
	// Registered first, so it runs after the daemon has stopped.
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s output (end):\n%s", name, tail(logPath, 3000))
		}
	})
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Its own group (stopped as a whole); killed if the test binary dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logf.Close()
		t.Fatalf("starting %s: %v", name, err)
	}
	d := &daemon{name: name, logPath: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		d.err = cmd.Wait()
		logf.Close()
		close(d.done)
	}()
	t.Cleanup(d.stop)
	return d
}

// stop sends SIGTERM to the daemon's process group, SIGKILL after 5s.
func (d *daemon) stop() {
	select {
	case <-d.done:
		return
	default:
	}
	pgid := d.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-d.done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-d.done
	}
}

var errDaemonExited = errors.New("exited")

// alive returns an error with the end of the daemon's log once it has exited.
func (d *daemon) alive() error {
	select {
	case <-d.done:
		return fmt.Errorf("%s %w (%v):\n%s", d.name, errDaemonExited, d.err, tail(d.logPath, 3000))
	default:
		return nil
	}
}

func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// command runs a control client (vtysh, birdc) and returns its output.
func command(argv ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}
