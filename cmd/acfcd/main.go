// Command acfcd trains sparse linear models by coordinate descent with
// online adaptation of coordinate frequencies (ACF). Its train and predict
// commands take liblinear's flags and read and write liblinear model files.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/acfcd/acfcd/kernel"
)

func main() {
	err := run(os.Stdout, os.Stderr, os.Args[1:])
	if err == nil {
		return
	}
	var ue usageError
	if errors.As(err, &ue) {
		if ue.msg != "" {
			fmt.Fprintf(os.Stderr, "acfcd: %s\n", ue.msg)
		}
		os.Exit(2)
	}
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	fmt.Fprintf(os.Stderr, "acfcd: %v\n", err)
	os.Exit(1)
}

// usageError is a mistake in the command line; main exits with status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{fmt.Sprintf(format, a...)} }

type command struct {
	name    string
	args    string
	summary string
	run     func(stdout, stderr io.Writer, args []string) error
}

var commands map[string]*command

func init() {
	list := []*command{
		{"demo", "", "train a built-in text-like problem with uniform, shrink and acf selection", runDemo},
		{"train", "[flags] DATA [MODEL]", "train a model (liblinear's flags)", runTrain},
		{"predict", "[-b 1] DATA MODEL OUT", "predict with a model (liblinear's output)", runPredict},
		{"info", "[--json] DATA", "describe a data file and how fast it parses", runInfo},
		{"convert", "[flags] DATA OUT", "write DATA as a binary cache that loads without parsing", runConvert},
		{"gen", "--preset kdd|url [flags] --out FILE", "write synthetic data shaped like kdd2010 or url (text, or a cache for FILE.acf)", runGen},
		{"version", "", "print the version, the CPU features seen and the kernel chosen", runVersion},
	}
	commands = map[string]*command{}
	for _, c := range list {
		commands[c.name] = c
	}
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "acfcd trains sparse linear models by ACF coordinate descent.\n\nUsage:\n\n\tacfcd COMMAND [arguments]\n\nCommands:\n\n")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "\t%-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintf(w, "\nRun 'acfcd COMMAND -h' for a command's flags.\n")
}

func run(stdout, stderr io.Writer, args []string) error {
	// A mistyped ACFCD_KERNEL would otherwise go unnoticed: the kernels
	// fall back to the best implementation.
	if err := kernel.EnvError(); err != nil {
		return err
	}
	if len(args) == 0 {
		usage(stderr)
		return usageError{}
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return nil
	}
	c, ok := commands[args[0]]
	if !ok {
		usage(stderr)
		return usagef("unknown command %q", args[0])
	}
	return c.run(stdout, stderr, args[1:])
}

// newFlagSet returns a flag set whose errors are usage errors and whose
// usage text names the command.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("acfcd "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := commands[name]
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: acfcd %s %s\n\n%s.\n", name, c.args, strings.ToUpper(c.summary[:1])+c.summary[1:])
		var any bool
		fs.VisitAll(func(*flag.Flag) { any = true })
		if any {
			fmt.Fprintf(stderr, "\nFlags:\n")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parseFlags parses args and turns flag errors into usage errors.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{} // the flag package has printed the message and usage
	}
	return nil
}

// isTerminal reports whether w is a character device (a terminal), where
// progress lines belong; pipes and files get none.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
