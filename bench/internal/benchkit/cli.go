package benchkit

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
)

// Main runs benchmark command name: parse reads its flags (a help request
// ends it quietly) and run does the work. An error is printed as
// "name: error" and ends the process with status 2 for the flags, 1
// otherwise.
func Main[O any](name string, parse func(args []string) (O, error), run func(O) error) {
	o, err := parse(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// SetUsage makes fs's usage message "Usage: cmd [flags]", about, and the
// flags with their defaults.
func SetUsage(fs *flag.FlagSet, cmd, about string) {
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s [flags]\n\n%s\n\nFlags:\n", cmd, about)
		fs.PrintDefaults()
	}
}

// DataDir is the default data directory: $ACFCD_DATA, else ../shared/data
// (beside the module root, where the commands are run from).
func DataDir() string {
	if d := os.Getenv("ACFCD_DATA"); d != "" {
		return d
	}
	return "../shared/data"
}

// SplitList splits a comma-separated flag value, leaving out blank items.
func SplitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// ParseList parses every item of a comma-separated flag value with parse;
// the first error is returned. No items give nil.
func ParseList[T any](s string, parse func(string) (T, error)) ([]T, error) {
	var out []T
	for _, p := range SplitList(s) {
		v, err := parse(p)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
