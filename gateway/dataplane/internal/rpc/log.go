package rpc

import (
	"io"
	"log/slog"
	"strings"
)

// NewLogger writes the contract's log lines, {"level":"info","msg":"…",…fields},
// one JSON object a line: Node adds the time and writes them into its own logger.
func NewLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{
		Level: level,
		ReplaceAttr: func(groups []string, attr slog.Attr) slog.Attr {
			if len(groups) > 0 {
				return attr
			}
			switch attr.Key {
			case slog.TimeKey:
				return slog.Attr{}
			case slog.LevelKey:
				return slog.String(slog.LevelKey, strings.ToLower(attr.Value.Any().(slog.Level).String()))
			}
			return attr
		},
	}))
}
