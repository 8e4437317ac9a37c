package cli

import (
	"cmp"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// Stamp is what the build stamped into the command (cmd/routewarden's
// version, commit and date, set by make build's and the Dockerfile's -X
// flags); an empty Version is a development build.
type Stamp struct{ Version, Commit, Date string }

// versionInfo is what `routewarden version` prints.
type versionInfo struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	Date    string `json:"date"`
	Go      string `json:"go"`
	GoBGP   string `json:"gobgp"`
	Module  string `json:"module"`
}

// buildVersion combines the stamped values with the binary's build
// information (VCS revision and time when not stamped, the GoBGP module).
func buildVersion(s Stamp) versionInfo {
	v := versionInfo{Version: cmp.Or(s.Version, "dev"), Commit: s.Commit, Date: s.Date, Go: runtime.Version(),
		GoBGP: "unknown"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	v.Module = bi.Main.Path
	if v.Version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision" && v.Commit == "":
			v.Commit = s.Value
		case s.Key == "vcs.time" && v.Date == "":
			v.Date = s.Value
		case s.Key == "vcs.modified" && s.Value == "true" && v.Commit != "" && !strings.HasSuffix(v.Commit, "-dirty"):
			v.Commit += "-dirty"
		}
	}
	for _, d := range bi.Deps {
		if strings.HasPrefix(d.Path, "github.com/osrg/gobgp") {
			v.GoBGP = d.Version
			if d.Replace != nil {
				v.GoBGP += " => " + d.Replace.Path + " " + d.Replace.Version
			}
		}
	}
	return v
}

func newVersionCmd(s Stamp) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print routewarden's version, commit, build date and the Go and GoBGP versions",
		Example: `  routewarden version
  routewarden version -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			output = outputName(output)
			if err := choice("-o", output, []string{"table", "json", "yaml"}); err != nil {
				return &exitError{code: ExitUsage, err: err}
			}
			v := buildVersion(s)
			if output != "table" {
				return writeStructured(cmd.OutOrStdout(), output, v)
			}
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "routewarden %s\n  commit  %s\n  built   %s\n  go      %s\n  gobgp   %s\n",
				v.Version, orUnknown(v.Commit), orUnknown(v.Date), v.Go, v.GoBGP)
			return err
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "table", "output: table, json, yaml")
	return cmd
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
