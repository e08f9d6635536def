package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/webmcp-bridge/bridge/internal/installrec"
)

func uninstallCommand() *Command {
	return &Command{
		Name:    "uninstall",
		Summary: "print the command that uninstalls the bridge (binaries, extension, browser manifests, and what register --write wrote into your agents' files)",
		Run:     runUninstall,
	}
}

// runUninstall says which command uninstalls the install this shim belongs
// to; it removes nothing itself (the uninstall stops this install's shims,
// this one among them). It exits 1: nothing was uninstalled.
func runUninstall(ctx context.Context, env *Env, args []string) int {
	fs := env.flagSet("uninstall")
	if code, ok := parseNoArgs(fs, args, env); !ok {
		return code
	}
	self, err := selfPath()
	if err != nil {
		fmt.Fprintf(env.Stderr, "webmcp-shim uninstall: cannot find this binary's path (%v): run webmcp-host uninstall --prefix PREFIX, PREFIX being the folder whose bin holds webmcp-host\n", err)
		return ExitFail
	}
	fmt.Fprint(env.Stdout, uninstallAdvice(filepath.Dir(self)))
	return ExitFail
}

// uninstallAdvice is what to run to uninstall the install whose binaries
// are in bin.
func uninstallAdvice(bin string) string {
	host := filepath.Join(bin, installrec.Exe("webmcp-host"))
	rec, exists, _ := installrec.Load(installrec.PathFor(bin))
	var b strings.Builder
	b.WriteString("webmcp-shim does not uninstall itself; to uninstall the bridge, run:\n\n")
	if !exists {
		// go install, or binaries copied by hand: the manifests that
		// name the host, and the agents' entries of this shim.
		fmt.Fprintf(&b, "  %s uninstall\n\n", quote(host))
		fmt.Fprintf(&b, "It removes the browsers' manifests that name %s and what webmcp-shim register --write\nwrote for %s into your agents' files; then delete the two binaries.\n", host, filepath.Join(bin, installrec.Exe("webmcp-shim")))
		return b.String()
	}
	prefix := filepath.Dir(bin)
	fmt.Fprintf(&b, "  %s uninstall --prefix %s\n\n", quote(host), quote(prefix))
	switch inst := rec.Installer; {
	case strings.HasPrefix(inst, "npx "):
		fmt.Fprintf(&b, "(%s uninstall does the same)\n", strings.TrimSuffix(inst, " install"))
	case inst != "":
		fmt.Fprintf(&b, "(or %s --uninstall from the folder you installed from, with the same --prefix)\n", inst)
	}
	b.WriteString("It removes the binaries, the extension's folder, the browsers' manifests, the MCP servers and\nprompt hooks that webmcp-shim register --write wrote into your agents' files (a project's are\nleft: run webmcp-shim register CLIENT --project DIR --remove first), and stops this install's hosts and shims.\n")
	return b.String()
}

// quote quotes a path for the user's shell.
func quote(s string) string {
	if os.PathSeparator == '\\' {
		return `"` + s + `"`
	}
	if strings.ContainsAny(s, " '\"$`\\") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}
