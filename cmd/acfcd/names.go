package main

import (
	"errors"
	"strings"

	dataio "github.com/acfcd/acfcd/io"
)

// The library's errors name its Go API where a program would change
// something (Options.MaxFeatures, Params.C); on the command line the same
// advice is a flag. The errors are typed and render their names through
// a function, so that this table is all the command line adds.

// flagNames maps the parameters and options of the library (the Param of
// an acfcd.ParamError, the Option of a dataio.Hint) to the flags that set
// them.
var flagNames = map[string]string{
	"Options.ZeroBased":        "--zero-based",
	"Options.Float32":          "--float32",
	"Options.KeepQID":          "--keep-qid",
	"Options.Format":           "--format",
	"Options.Threads":          "--threads",
	"Options.MaxFeatures":      "--max-features",
	"Options.MaxLine":          "--max-line",
	"Options.MaxRatio":         "--max-ratio",
	"Params.Problem":           "-s",
	"Params.C":                 "-c",
	"Params.Eps":               "-e",
	"Params.P":                 "-p",
	"Params.Nu":                "-n",
	"Params.Bias":              "-B",
	"Params.ZeroBias":          "-B 0",
	"Params.UnregularizedBias": "-R",
	"Params.Weights":           "-wi",
	"Params.Select":            "--select",
	"Params.Seed":              "--seed",
	"Params.MaxEpochs":         "--max-epochs",
	"Params.Lambda":            "--lambda",
	"Params.Alpha":             "--alpha",
	"Params.Standardize":       "--standardize",
	"Params.Intercept":         "--intercept",
	"Params.GapTol":            "--gap",
	"Params.Thresh":            "--thresh",
	"Params.NoFallback":        "--fallback none",
	"folds":                    "-v",
	"CVPathOptions.Folds":      "-v",
	"n":                        "--lambda-path",
	"ratio":                    "--lambda-ratio",
	"SearchOptions.StartC":     "-c",
	"SearchOptions.StartP":     "-p",
}

// flagName names a parameter or option, set to value when value is not
// "", as the command line sets it: "--max-features 5", "-R".
func flagName(name, value string) string {
	f, ok := flagNames[name]
	switch {
	case !ok:
		return dataio.GoName(name, value)
	case value == "" || value == "true":
		return f
	}
	return f + " " + value
}

// named is a library error that names its parameter or option through a
// function (acfcd.ParamError, acfcd.DataError, dataio.ParseError,
// dataio.LimitError).
type named interface {
	error
	Message(name func(option, value string) string) string
}

// cliError is err with the parameter or option it names given as a flag:
// the text of the typed error inside it rendered by flagName. run applies
// it to every command's error; it keeps err for errors.Is and errors.As.
func cliError(err error) error {
	var n named
	if err == nil || !errors.As(err, &n) {
		return err
	}
	msg := strings.Replace(err.Error(), n.Error(), n.Message(flagName), 1)
	if msg == err.Error() {
		return err
	}
	return &wordedError{msg: msg, err: err}
}

type wordedError struct {
	msg string
	err error
}

func (e *wordedError) Error() string { return e.msg }
func (e *wordedError) Unwrap() error { return e.err }

// isBlankLineError reports a blank or comment-only line refused with
// Options.NoBlankLines.
func isBlankLineError(pe *dataio.ParseError) bool {
	return strings.HasPrefix(pe.Msg, "blank line,") || strings.HasPrefix(pe.Msg, "comment line,")
}
