package endpoint

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

// privateDir is a fresh private runtime directory, made by
// [EnsureRuntimeDir]. Its cleanup removes entries one by one and ignores
// errors, since os.RemoveAll fails on files under Wine.
func privateDir(t *testing.T) string {
	t.Helper()
	base, err := os.MkdirTemp("", "wm")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "r")
	if err := EnsureRuntimeDir(dir); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			os.Remove(filepath.Join(dir, e.Name()))
		}
		os.Remove(dir)
		os.Remove(base)
	})
	return dir
}

// deadPID is the pid of a process that has ended: a run of this test
// binary that runs no test.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// TestEndpoint: a host's endpoint is listed in the runtime directory, is
// the user's own, carries bytes both ways, each end finds the other to be
// the user's (CheckPeer), and closing the listener removes it.
func TestEndpoint(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second) // a hang guard only
	defer cancel()
	dir := privateDir(t)
	path := SocketPath(dir, os.Getpid())
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if got := ln.Addr().String(); got != path {
		t.Errorf("Addr = %s, want %s", got, path)
	}
	if got, _ := HostSockets(dir); !slices.Equal(got, []string{path}) {
		t.Errorf("HostSockets = %v, want [%s]", got, path)
	}
	if err := CheckSocket(path); err != nil {
		t.Errorf("CheckSocket(own endpoint) = %v", err)
	}
	served := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			served <- err
			return
		}
		defer c.Close()
		pid, err := CheckPeer(c)
		if err != nil {
			served <- err
			return
		}
		if !peerPIDKnown() {
			pid = os.Getpid()
		}
		if pid != os.Getpid() {
			served <- fmt.Errorf("CheckPeer(the host's end) says the peer is process %d, want this process, %d", pid, os.Getpid())
			return
		}
		line, err := bufio.NewReader(c).ReadString('\n')
		if err == nil {
			_, err = c.Write([]byte("echo " + line))
		}
		served <- err
	}()
	c, err := Dial(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if pid, err := CheckPeer(c); err != nil || (peerPIDKnown() && pid != os.Getpid()) {
		t.Errorf("CheckPeer(the shim's end) = %d, %v; want this process, %d", pid, err, os.Getpid())
	}
	if _, err := c.Write([]byte("hi\n")); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || line != "echo hi\n" {
		t.Errorf("read %q, %v; want the echo", line, err)
	}
	if err := <-served; err != nil {
		t.Errorf("the host's end: %v", err)
	}
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	if got, _ := HostSockets(dir); len(got) != 0 {
		t.Errorf("HostSockets after Close = %v, want none", got)
	}
}

// TestRemoveStaleEndpoints: an endpoint left by a host that is gone is
// removed; a live host's is kept, and so is one named after a live process.
func TestRemoveStaleEndpoints(t *testing.T) {
	dir := privateDir(t)
	stale := abandon(t, SocketPath(dir, deadPID(t)))
	live, err := Listen(SocketPath(dir, deadPID(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	alive := abandon(t, SocketPath(dir, os.Getpid()))
	removed, err := RemoveStaleSockets(t.Context(), dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(removed, []string{stale}) {
		t.Errorf("removed %v, want [%s]", removed, stale)
	}
	left, _ := HostSockets(dir)
	want := []string{alive, live.Addr().String()}
	slices.Sort(left)
	slices.Sort(want)
	if !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
}

// peerPIDKnown says whether CheckPeer returns the peer's pid on this
// system (see peerPID).
func peerPIDKnown() bool {
	switch runtime.GOOS {
	case "linux", "darwin", "windows":
		return true
	}
	return false
}
