package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/webmcp-bridge/bridge/manifest"
	"github.com/webmcp-bridge/bridge/webmcp"
)

// installCmd runs `webmcp-host install` and `webmcp-host uninstall`: write
// or remove the native-messaging manifest that names this binary.
func installCmd(name string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("webmcp-host "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var dirs multiFlag
	fs.Var(&dirs, "user-data-dir", "also (un)register for a browser started with --user-data-dir=`DIR` (repeatable)")
	noBrowsers := fs.Bool("no-browsers", false, "skip the browsers' own user-level manifest folders")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: webmcp-host %s [--user-data-dir DIR]... [--no-browsers]\n\n", name)
		if name == "install" {
			fmt.Fprintf(stderr, "Writes %s, naming this binary, into the native-messaging folder of every\nsupported browser of this system and of each --user-data-dir.\n\n", manifest.FileName)
		} else {
			fmt.Fprintf(stderr, "Removes %s from the folders that install writes.\n\n", manifest.FileName)
		}
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "webmcp-host %s: unexpected argument %q\n", name, fs.Arg(0))
		return 2
	}
	var locs []manifest.Location
	if !*noBrowsers {
		home, err := os.UserHomeDir()
		if err != nil {
			fmt.Fprintf(stderr, "webmcp-host %s: %v\n", name, err)
			return 1
		}
		locs = manifest.Locations(runtime.GOOS, home, os.Getenv("XDG_CONFIG_HOME"))
	}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			fmt.Fprintf(stderr, "webmcp-host %s: %v\n", name, err)
			return 1
		}
		locs = append(locs, manifest.UserDataDir(abs))
	}
	if len(locs) == 0 {
		fmt.Fprintf(stderr, "webmcp-host %s: nothing to do on %s: give --user-data-dir DIR\n", name, runtime.GOOS)
		return 2
	}

	if name == "uninstall" {
		for _, l := range locs {
			removed, err := manifest.Remove(l.Dir)
			if err != nil {
				fmt.Fprintf(stderr, "webmcp-host uninstall: %s: %v\n", l.Browser, err)
				return 1
			}
			if removed {
				fmt.Fprintf(stdout, "removed %s (%s)\n", filepath.Join(l.Dir, manifest.FileName), l.Browser)
			}
		}
		return 0
	}

	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		fmt.Fprintf(stderr, "webmcp-host install: cannot find this binary's path: %v\n", err)
		return 1
	}
	m, err := manifest.New(self)
	if err != nil {
		fmt.Fprintf(stderr, "webmcp-host install: %v\n", err)
		return 1
	}
	for _, l := range locs {
		path, err := manifest.Write(m, l.Dir)
		if err != nil {
			fmt.Fprintf(stderr, "webmcp-host install: %s: %v\n", l.Browser, err)
			return 1
		}
		fmt.Fprintf(stdout, "wrote %s (%s)\n", path, l.Browser)
	}
	fmt.Fprintf(stdout, "extension ID %s may start %s\n", webmcp.ExtensionID, self)
	return 0
}

type multiFlag []string

func (m *multiFlag) String() string     { return fmt.Sprint(*m) }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
