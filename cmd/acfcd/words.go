package main

import (
	"errors"
	"regexp"
	"strings"

	dataio "github.com/acfcd/acfcd/io"
)

// The library's messages name its Go API where a program would change
// something (Options.MaxFeatures, Params.Intercept, ZeroBased); on the
// command line the same advice is a flag. cliWords rewrites those names.

// goFields maps the fields of acfcd.Options and acfcd.Params to the flags
// that set them.
var goFields = map[string]string{
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
	"Params.UnregularizedBias": "-R",
	"Params.Weights":           "-wi",
	"Params.Select":            "--select",
	"Params.Seed":              "--seed",
	"Params.MaxEpochs":         "--max-epochs",
	"Params.Lambda":            "--lambda",
	"Params.Intercept":         "--intercept",
	"Params.GapTol":            "--gap",
	"Params.Thresh":            "--thresh",
	"Params.NoFallback":        "--fallback none",
}

var goFieldRE = regexp.MustCompile(`\b(Options|Params)\.[A-Z][A-Za-z0-9]*\b`)

// goPhrases are the other messages that name Go identifiers, in the order
// they are rewritten (after the fields).
var goPhrases = []struct{ old, new string }{
	{"(--max-features, --max-features; ", "(--max-features; "},
	{"(--max-line, --max-line)", "(--max-line)"},
	{"(--max-ratio, --max-ratio)", "(--max-ratio)"},
	{" (--max-features)", ""},
	{"set ZeroBased for 0-based files", "--zero-based reads 0-based files"},
	{"read without Float32", "read without --float32"},
	{"MaxEpochs must", "--max-epochs must"},
	{"Nu must", "-n must"},
	{"P must", "-p must"},
	{"(use --intercept for an intercept)", "(--intercept fits an intercept)"},
	{"RowPtr", "the row offsets"},
	{"but Index has", "but the feature indices have"},
}

// cliWords rewrites the Go names in a library message into flags.
func cliWords(msg string) string {
	msg = goFieldRE.ReplaceAllStringFunc(msg, func(k string) string {
		if f, ok := goFields[k]; ok {
			return f
		}
		return k
	})
	for _, p := range goPhrases {
		msg = strings.ReplaceAll(msg, p.old, p.new)
	}
	return msg
}

// cliError is err with its message in the command line's words. It
// keeps err for errors.Is and errors.As.
func cliError(err error) error {
	if err == nil {
		return nil
	}
	msg := cliWords(err.Error())
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

// asParseError is errors.As for a *dataio.ParseError.
func asParseError(err error, pe **dataio.ParseError) bool { return errors.As(err, pe) }

// isBlankLineError reports a blank or comment-only line refused with
// Options.NoBlankLines.
func isBlankLineError(pe *dataio.ParseError) bool {
	return strings.HasPrefix(pe.Msg, "blank line,") || strings.HasPrefix(pe.Msg, "comment line,")
}
