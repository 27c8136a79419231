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

	dataio "github.com/acfcd/acfcd/io"
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
	fmt.Fprintf(w, "\nRun 'acfcd help COMMAND' (or 'acfcd COMMAND -h') for a command's flags, 'acfcd --version' for the version.\n")
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
	case "-h", "-help", "--help":
		usage(stdout)
		return nil
	case "help":
		if len(args) == 1 {
			usage(stdout)
			return nil
		}
		if _, ok := commands[args[1]]; !ok || len(args) > 2 {
			return usagef("help takes one command name: %s", strings.Join(commandNames(), ", "))
		}
		args = []string{args[1], "-h"}
	case "-version", "--version":
		args = []string{"version"}
	}
	c, ok := commands[args[0]]
	if !ok {
		return usagef("unknown command %q (acfcd help lists the commands)", args[0])
	}
	err := c.run(stdout, stderr, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return nil // the usage is printed
	}
	var oe *dataio.OptionError
	if errors.As(err, &oe) {
		return usageError{oe.Message(flagName)} // a flag's value: exit status 2
	}
	return cliError(err)
}

func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// flagSet is a command's flags. A mistake in them is a one-line usage
// error (exit status 2); -h prints the command's usage on stdout.
type flagSet struct {
	*flag.FlagSet
	cmd    string
	stdout io.Writer
	// help prints the usage; nil prints the command's line and the flags.
	help func(w io.Writer)
}

// newFlagSet returns the flag set of command name; -h prints its usage
// on stdout.
func newFlagSet(name string, stdout io.Writer) *flagSet {
	fs := &flagSet{FlagSet: flag.NewFlagSet("acfcd "+name, flag.ContinueOnError), cmd: name, stdout: stdout}
	fs.SetOutput(io.Discard)
	fs.Usage = func() {} // parse prints the usage for -h, and none for a mistake
	return fs
}

// parse parses args. It returns flag.ErrHelp after printing the usage for
// -h, and a usage error of one line for a mistake.
func (fs *flagSet) parse(args []string) error {
	err := fs.Parse(args)
	if err == nil {
		return nil
	}
	if errors.Is(err, flag.ErrHelp) {
		fs.printUsage(fs.stdout)
		return flag.ErrHelp
	}
	return usagef("%s: %s (acfcd help %s lists the flags)", fs.cmd, flagMessage(err.Error()), fs.cmd)
}

// args returns a usage error for arguments that do not fit the command.
func (fs *flagSet) args(format string, a ...any) error {
	return usagef("%s (acfcd help %s)", fmt.Sprintf(format, a...), fs.cmd)
}

func (fs *flagSet) printUsage(w io.Writer) {
	if fs.help != nil {
		fs.help(w)
		return
	}
	c := commands[fs.cmd]
	fmt.Fprintf(w, "usage: acfcd %s %s\n\n%s.\n", fs.cmd, c.args, strings.ToUpper(c.summary[:1])+c.summary[1:])
	var any bool
	fs.VisitAll(func(*flag.Flag) { any = true })
	if any {
		fmt.Fprintf(w, "\nFlags:\n")
		printFlags(w, fs.FlagSet, nil)
	}
}

// printFlags prints the flags of fs as the flag package does, with two
// dashes for long names, leaving out those in skip.
func printFlags(w io.Writer, fs *flag.FlagSet, skip map[string]bool) {
	fs.VisitAll(func(f *flag.Flag) {
		if skip[f.Name] {
			return
		}
		dash := "-"
		if len(f.Name) > 1 {
			dash = "--"
		}
		name, text := flag.UnquoteUsage(f)
		line := "  " + dash + f.Name
		if name != "" {
			line += " " + name
		}
		text = strings.ReplaceAll(text, "\n", "\n    \t")
		line += "\n    \t" + text
		if def := f.DefValue; def != "" && def != "0" && def != "false" {
			line += fmt.Sprintf(" (default %s)", def)
		}
		fmt.Fprintln(w, line)
	})
}

// flagMessage turns the flag package's errors into the command line's
// words.
func flagMessage(msg string) string {
	if f, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		return "unknown flag " + f
	}
	if f, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return f + " needs a value"
	}
	// invalid value "x" for flag -c: parse error
	// invalid boolean value "x" for -R: parse error
	for _, pre := range []string{"invalid value ", "invalid boolean value "} {
		rest, ok := strings.CutPrefix(msg, pre)
		if !ok {
			continue
		}
		val, rest, ok1 := strings.Cut(rest, " for ")
		name, why, ok2 := strings.Cut(strings.TrimPrefix(rest, "flag "), ": ")
		if ok1 && ok2 {
			if len(name) > 2 && name[1] != '-' {
				name = "-" + name // --select, as the usage writes it
			}
			if why == "parse error" {
				return fmt.Sprintf("%s %s: not a valid value", name, val)
			}
			return fmt.Sprintf("%s %s: not a valid value (%s)", name, val, why)
		}
	}
	return msg
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
