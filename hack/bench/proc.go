package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat.
const clockTicks = 100

// cpuSeconds is the process's user+system CPU time so far.
func cpuSeconds(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name may hold spaces; fields are counted after its ')'.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / clockTicks, nil
}

// memKB returns VmRSS and VmHWM (peak RSS) in kB.
func memKB(pid int) (rss, hwm int64, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		for key, dst := range map[string]*int64{"VmRSS:": &rss, "VmHWM:": &hwm} {
			if strings.HasPrefix(line, key) {
				fs := strings.Fields(line)
				if len(fs) >= 2 {
					*dst, _ = strconv.ParseInt(fs[1], 10, 64)
				}
			}
		}
	}
	return rss, hwm, sc.Err()
}

// proc is a collector process started by the harness.
type proc struct {
	name string
	cmd  *exec.Cmd
	out  string // combined stderr (and stdout when not piped)
	done chan struct{}
}

func startProc(name, logPath string, cmd *exec.Cmd) (*proc, error) {
	lf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd.Stderr = lf
	if cmd.Stdout == nil {
		cmd.Stdout = lf
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		lf.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, out: logPath, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		lf.Close()
		close(p.done)
	}()
	return p, nil
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

// alive returns an error with the log's tail once the process has exited.
func (p *proc) alive() error {
	select {
	case <-p.done:
		b, _ := os.ReadFile(p.out)
		if len(b) > 2000 {
			b = b[len(b)-2000:]
		}
		return fmt.Errorf("%s exited (%v): %s", p.name, p.cmd.ProcessState, b)
	default:
		return nil
	}
}

// stop sends SIGTERM, then SIGKILL after 5 s, to the process group.
func (p *proc) stop() {
	_ = syscall.Kill(-p.pid(), syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-p.pid(), syscall.SIGKILL)
		<-p.done
	}
}

// freePort asks the kernel for a free TCP port on 127.0.0.1.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitFor polls f every interval until it reports done, fails, or timeout passes.
func waitFor(timeout, interval time.Duration, what string, f func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := f()
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: timed out after %s", what, timeout)
		}
		time.Sleep(interval)
	}
}
