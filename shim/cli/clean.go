package cli

import (
	"context"
	"fmt"

	"github.com/webmcp-bridge/bridge/shim/spill"
)

func cleanCommand() *Command {
	return &Command{
		Name:    "clean",
		Summary: "remove the tool results saved to files (too big for the agent's context)",
		Run:     runClean,
	}
}

func runClean(_ context.Context, env *Env, args []string) int {
	fs := env.flagSet("clean")
	if code, ok := parseNoArgs(fs, args, env); !ok {
		return code
	}
	s := &spill.Spiller{}
	n, err := s.Clean(true)
	if err != nil {
		fmt.Fprintf(env.Stderr, "webmcp-shim: cannot clean %s: %v\n", spill.Dir(), err)
		return ExitFail
	}
	fmt.Fprintf(env.Stdout, "removed %s from %s\n", plural(n, "saved result"), spill.Dir())
	return ExitOK
}

// sizeFlag is a flag of a size in bytes: 262144, 256KiB, 1MiB.
type sizeFlag int

func (f *sizeFlag) String() string { return fmt.Sprint(int(*f)) }

func (f *sizeFlag) Set(s string) error {
	n, err := spill.ParseSize(s)
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("--max-result must be more than 0")
	}
	*f = sizeFlag(n)
	return nil
}
