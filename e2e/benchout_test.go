package e2e

// The output of BenchmarkSuite: what it measured (suiteFigures), the rows
// of its table with their targets (suiteReport), and the files it writes:
// results.json, results.md and latency.svg.

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// latStats sums up a set of latencies.
type latStats struct {
	N                   int
	P50, P99, Max, Mean time.Duration
}

func summarize(d []time.Duration) latStats {
	if len(d) == 0 {
		return latStats{}
	}
	p50, p99 := percentiles(d)
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	return latStats{N: len(d), P50: p50, P99: p99, Max: slices.Max(d), Mean: sum / time.Duration(len(d))}
}

// loadStats is one path at one number of calls in flight.
type loadStats struct {
	Calls   int
	Elapsed time.Duration
	PerSec  float64
	P50     time.Duration
	P99     time.Duration
}

// MarshalJSON writes the times in milliseconds.
func (l loadStats) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Calls   int     `json:"calls"`
		Seconds float64 `json:"seconds"`
		PerSec  float64 `json:"callsPerSec"`
		P50     float64 `json:"p50Ms"`
		P99     float64 `json:"p99Ms"`
	}{l.Calls, l.Elapsed.Seconds(), math.Round(l.PerSec*10) / 10, ms(l.P50), ms(l.P99)})
}

// procStats is one process's memory and open files.
type procStats struct {
	RSSKiB int64
	HWMKiB int64 // 0: not known on this OS
	FDs    int   // -1: not known on this OS
}

// sizeFigure is one big argument or result.
type sizeFigure struct {
	What   string        // "argument" or "result"
	Label  string        // its size as the table says it
	Bytes  int           // of the text
	Time   time.Duration // median of the calls
	Intact bool
	CDP    time.Duration // 0: not measured
	Note   string
}

// modeFigures is what one WebMCP mode measured; zero values were not
// measured.
type modeFigures struct {
	Chain          latStats
	CDP            latStats // native only
	InPage         latStats // executeTool in a page loop
	HasExecuteTool bool
	Levels         map[int]loadStats // calls in flight -> the chain
	CDPLevels      map[int]loadStats // native only
	ListChanged    latStats
	Updated        latStats
	// native only
	ShimInit, ShimTools           latStats
	HostIdle, HostWarm, HostAfter procStats
	ShimIdle, ShimWarm, ShimAfter procStats
	HostBig, ShimBig              procStats // after the big arguments and results
	CallsWarm                     int       // chain calls between idle and warm
	CallsMore                     int       // chain calls between warm and after
	Sizes                         []sizeFigure
	Done                          bool // every phase ran
}

// flatKiB is how much RSS may grow over the memory calls and still count
// as flat.
const flatKiB = 1024

// levelsInFlight are the numbers of calls in flight of the throughput runs.
var levelsInFlight = []int{1, 4, 16, 64}

// machine says where the suite ran.
type machine struct {
	OS        string `json:"os"`
	Kernel    string `json:"kernel,omitempty"`
	CPUs      int    `json:"cpus"`
	CPUModel  string `json:"cpuModel"`
	MemoryMiB int64  `json:"memoryMiB,omitempty"`
	LoadAvg   string `json:"loadAverageAtStart"`
	Chromium  string `json:"chromium"`
	Go        string `json:"go"`
	Tree      string `json:"tree"` // git describe --always --dirty
}

// suiteRow is one figure of the table.
type suiteRow struct {
	ID     string   `json:"id"`
	Group  string   `json:"group"`
	Name   string   `json:"name"`
	Value  *float64 `json:"value"` // null: not measured (see errors)
	Unit   string   `json:"unit"`
	CDP    *float64 `json:"cdp,omitempty"`
	Ratio  *float64 `json:"ratioToCDP,omitempty"`
	Target string   `json:"target,omitempty"`
	Met    *bool    `json:"met,omitempty"`
	Note   string   `json:"note,omitempty"`
}

// suiteLevel is one number of calls in flight, for the plot.
type suiteLevel struct {
	InFlight int        `json:"inFlight"`
	Native   *loadStats `json:"nativeChain,omitempty"`
	Polyfill *loadStats `json:"polyfillChain,omitempty"`
	CDP      *loadStats `json:"cdp,omitempty"`
}

// suiteReport is results.json.
type suiteReport struct {
	Date    string         `json:"date"`
	Machine machine        `json:"machine"`
	Params  map[string]int `json:"params"`
	Rows    []suiteRow     `json:"rows"`
	Levels  []suiteLevel   `json:"levels"`
	Notes   []string       `json:"notes"`
	Errors  []string       `json:"errors,omitempty"`
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
func mib(kib int64) float64      { return float64(kib) / 1024 }
func ptr[T any](v T) *T          { return &v }

// buildReport turns the figures of both modes into the table's rows.
func buildReport(rep *suiteReport, nat, poly *modeFigures) {
	add := func(r suiteRow) { rep.Rows = append(rep.Rows, r) }
	// atMost and atLeast judge a value against a limit.
	atMost := func(v *float64, limit float64) *bool {
		if v == nil {
			return nil
		}
		return ptr(*v <= limit)
	}
	val := func(ok bool, v float64) *float64 {
		if !ok {
			return nil
		}
		return &v
	}
	ratio := func(v, c *float64) *float64 {
		if v == nil || c == nil || *c == 0 {
			return nil
		}
		return ptr(*v / *c)
	}
	cdpOK := nat.CDP.N > 0
	cdpP50, cdpP99 := val(cdpOK, ms(nat.CDP.P50)), val(cdpOK, ms(nat.CDP.P99))

	// Round trip.
	for _, m := range []struct {
		name string
		f    *modeFigures
	}{{"native", nat}, {"polyfill", poly}} {
		ok := m.f.Chain.N > 0
		p50, p99 := val(ok, ms(m.f.Chain.P50)), val(ok, ms(m.f.Chain.P99))
		r50, r99 := ratio(p50, cdpP50), ratio(p99, cdpP99)
		var met50, met99 *bool
		if r50 != nil {
			met50 = atMost(r50, 1.6)
		}
		if r99 != nil {
			met99 = atMost(r99, 1.5)
		}
		add(suiteRow{ID: "roundtrip." + m.name + ".p50", Group: "round trip", Name: m.name + " chain, p50", Value: p50, Unit: "ms",
			CDP: cdpP50, Ratio: r50, Target: "≤ 1.6× CDP", Met: met50, Note: fmt.Sprintf("%d calls", m.f.Chain.N)})
		add(suiteRow{ID: "roundtrip." + m.name + ".p99", Group: "round trip", Name: m.name + " chain, p99", Value: p99, Unit: "ms",
			CDP: cdpP99, Ratio: r99, Target: "≤ 1.5× CDP", Met: met99})
	}
	add(suiteRow{ID: "roundtrip.cdp.p50", Group: "round trip", Name: "CDP WebMCP.invokeTool (native browser), p50", Value: cdpP50, Unit: "ms",
		Note: fmt.Sprintf("%d calls, alternating with the native chain's", nat.CDP.N)})
	add(suiteRow{ID: "roundtrip.cdp.p99", Group: "round trip", Name: "CDP WebMCP.invokeTool (native browser), p99", Value: cdpP99, Unit: "ms"})
	for _, m := range []struct {
		name string
		f    *modeFigures
	}{{"native", nat}, {"polyfill", poly}} {
		ok := m.f.InPage.N > 0
		p50, p99, mean := val(ok, ms(m.f.InPage.P50)), val(ok, ms(m.f.InPage.P99)), val(ok, ms(m.f.InPage.Mean))
		note := "document.modelContext.executeTool in a page loop, timed with performance.now() (coarsened to 0.1 ms in a page that is not cross-origin isolated)"
		if !ok && !m.f.HasExecuteTool && m.f.Done {
			note = "document.modelContext.executeTool is missing in this mode"
		}
		if ok && m.f.InPage.P50 < 100*time.Microsecond {
			note += "; most calls are below that resolution: the mean is the figure to read"
		}
		add(suiteRow{ID: "inpage." + m.name + ".p50", Group: "round trip", Name: "executeTool in the page, " + m.name + ", p50", Value: p50, Unit: "ms",
			CDP: cdpP50, Ratio: ratio(p50, cdpP50), Note: note})
		add(suiteRow{ID: "inpage." + m.name + ".p99", Group: "round trip", Name: "executeTool in the page, " + m.name + ", p99", Value: p99, Unit: "ms",
			CDP: cdpP99, Ratio: ratio(p99, cdpP99)})
		add(suiteRow{ID: "inpage." + m.name + ".mean", Group: "round trip", Name: "executeTool in the page, " + m.name + ", mean", Value: mean, Unit: "ms",
			Note: "the loop's total time / calls"})
	}

	// Throughput.
	for _, k := range levelsInFlight {
		c, cok := nat.CDPLevels[k]
		cdpRate := val(cok, c.PerSec)
		for _, m := range []struct {
			name string
			f    *modeFigures
		}{{"native", nat}, {"polyfill", poly}} {
			s, ok := m.f.Levels[k]
			v := val(ok, s.PerSec)
			r := ratio(v, cdpRate)
			row := suiteRow{ID: fmt.Sprintf("throughput.%s.%d", m.name, k), Group: "throughput",
				Name: fmt.Sprintf("%s chain, %d in flight", m.name, k), Value: v, Unit: "calls/s", CDP: cdpRate, Ratio: r}
			if ok {
				row.Note = fmt.Sprintf("p50 %.2f ms, p99 %.2f ms", ms(s.P50), ms(s.P99))
			}
			if k == 16 {
				row.Target = "≥ 0.5× CDP"
				if r != nil {
					row.Met = ptr(*r >= 0.5)
				}
			}
			add(row)
		}
		row := suiteRow{ID: fmt.Sprintf("throughput.cdp.%d", k), Group: "throughput", Name: fmt.Sprintf("CDP, %d in flight", k), Value: cdpRate, Unit: "calls/s"}
		if cok {
			row.Note = fmt.Sprintf("p50 %.2f ms, p99 %.2f ms", ms(c.P50), ms(c.P99))
		}
		add(row)
	}

	// Notifications and start.
	for _, m := range []struct {
		name string
		f    *modeFigures
	}{{"native", nat}, {"polyfill", poly}} {
		lc, up := m.f.ListChanged, m.f.Updated
		for _, e := range []struct {
			id, name string
			s        latStats
			limit    float64
			note     string
		}{
			{"listchanged", "registerTool → tools/list_changed", lc, 50, "from the Go side: includes the Runtime.evaluate that calls registerTool"},
			{"updated", "click → resources/updated", up, 100, "from the Go side: the mouse release sent over CDP to the notification"},
		} {
			ok := e.s.N > 0
			p50, p99 := val(ok, ms(e.s.P50)), val(ok, ms(e.s.P99))
			note := e.note
			if ok {
				note = fmt.Sprintf("%d times; max %.1f ms; %s", e.s.N, ms(e.s.Max), e.note)
			}
			add(suiteRow{ID: e.id + "." + m.name + ".p50", Group: "notifications", Name: e.name + ", " + m.name + ", p50", Value: p50, Unit: "ms",
				Target: fmt.Sprintf("≤ %g ms", e.limit), Met: atMost(p50, e.limit), Note: note})
			add(suiteRow{ID: e.id + "." + m.name + ".p99", Group: "notifications", Name: e.name + ", " + m.name + ", p99", Value: p99, Unit: "ms",
				Target: fmt.Sprintf("≤ %g ms", e.limit), Met: atMost(p99, e.limit)})
		}
	}
	{
		ok := nat.ShimInit.N > 0
		p50, mx := val(ok, ms(nat.ShimInit.P50)), val(ok, ms(nat.ShimInit.Max))
		add(suiteRow{ID: "shimstart.initialize.p50", Group: "shim start", Name: "shim start → initialize answered, p50", Value: p50, Unit: "ms",
			Target: "≤ 50 ms", Met: atMost(p50, 50), Note: fmt.Sprintf("%d starts, the browser running with the demo tab; includes fork and exec", nat.ShimInit.N)})
		add(suiteRow{ID: "shimstart.initialize.max", Group: "shim start", Name: "shim start → initialize answered, max", Value: mx, Unit: "ms",
			Target: "≤ 50 ms", Met: atMost(mx, 50)})
		ok = nat.ShimTools.N > 0
		add(suiteRow{ID: "shimstart.tools.p50", Group: "shim start", Name: "shim start → the page's tools listed, p50", Value: val(ok, ms(nat.ShimTools.P50)), Unit: "ms"})
		add(suiteRow{ID: "shimstart.tools.max", Group: "shim start", Name: "shim start → the page's tools listed, max", Value: val(ok, ms(nat.ShimTools.Max)), Unit: "ms"})
	}

	// Memory.
	memOK := nat.HostIdle.RSSKiB > 0
	afterOK := nat.HostAfter.RSSKiB > 0
	for _, p := range []struct {
		id, name          string
		idle, warm, after procStats
		limit             float64
	}{
		{"host", "webmcp-host", nat.HostIdle, nat.HostWarm, nat.HostAfter, 15},
		{"shim", "webmcp-shim", nat.ShimIdle, nat.ShimWarm, nat.ShimAfter, 25},
	} {
		idle, warm, after := val(memOK, mib(p.idle.RSSKiB)), val(afterOK, mib(p.warm.RSSKiB)), val(afterOK, mib(p.after.RSSKiB))
		target := fmt.Sprintf("≤ %g MiB", p.limit)
		add(suiteRow{ID: "rss." + p.id + ".idle", Group: "memory", Name: p.name + " RSS, idle", Value: idle, Unit: "MiB", Target: target, Met: atMost(idle, p.limit)})
		add(suiteRow{ID: "rss." + p.id + ".warm", Group: "memory", Name: fmt.Sprintf("%s RSS, warm (after %d calls)", p.name, nat.CallsWarm), Value: warm, Unit: "MiB",
			Target: target, Met: atMost(warm, p.limit)})
		add(suiteRow{ID: "rss." + p.id + ".after", Group: "memory", Name: fmt.Sprintf("%s RSS, after %d more calls", p.name, nat.CallsMore), Value: after, Unit: "MiB",
			Target: target, Met: atMost(after, p.limit)})
		var growth *float64
		if warm != nil && after != nil {
			growth = ptr(*after - *warm)
		}
		add(suiteRow{ID: "rss." + p.id + ".growth", Group: "memory", Name: fmt.Sprintf("%s RSS growth over those %d calls", p.name, nat.CallsMore), Value: growth, Unit: "MiB",
			Target: fmt.Sprintf("flat (≤ +%g MiB)", float64(flatKiB)/1024), Met: atMost(growth, float64(flatKiB)/1024)})
		fd := func(s procStats, ok bool) *float64 { return val(ok && s.FDs >= 0, float64(s.FDs)) }
		fdIdle, fdWarm, fdAfter := fd(p.idle, memOK), fd(p.warm, afterOK), fd(p.after, afterOK)
		var fdMet *bool
		if fdWarm != nil && fdAfter != nil {
			fdMet = ptr(*fdAfter <= *fdWarm)
		}
		add(suiteRow{ID: "fds." + p.id, Group: "memory", Name: fmt.Sprintf("%s open files, after %d more calls", p.name, nat.CallsMore), Value: fdAfter, Unit: "fds",
			Target: "flat", Met: fdMet, Note: fmt.Sprintf("%s idle, %s warm", fmtVal(fdIdle, "fds"), fmtVal(fdWarm, "fds"))})
	}
	if nat.HostBig.RSSKiB > 0 {
		for _, p := range []struct {
			id, name string
			s        procStats
		}{{"host", "webmcp-host", nat.HostBig}, {"shim", "webmcp-shim", nat.ShimBig}} {
			add(suiteRow{ID: "rss." + p.id + ".big", Group: "memory", Name: p.name + " RSS after the big arguments and results", Value: ptr(mib(p.s.RSSKiB)), Unit: "MiB",
				Note: fmt.Sprintf("peak %.1f MiB", mib(p.s.HWMKiB))})
		}
	}

	// Sizes.
	for _, s := range nat.Sizes {
		id := fmt.Sprintf("size.%s.%dMiB", s.What, (s.Bytes+1<<19)>>20)
		row := suiteRow{ID: id, Group: "sizes", Name: fmt.Sprintf("%s of %s", s.What, s.Label), Unit: "ms", Target: "intact"}
		if s.Time > 0 {
			row.Value = ptr(ms(s.Time))
			row.Met = ptr(s.Intact)
		}
		if s.CDP > 0 {
			row.CDP = ptr(ms(s.CDP))
			row.Ratio = ratio(row.Value, row.CDP)
		}
		row.Note = s.Note
		add(row)
	}
}

func sizeName(n int) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%.2f MiB (%d bytes)", float64(n)/(1<<20), n)
}

// buildLevels is the plot's data.
func buildLevels(nat, poly *modeFigures) []suiteLevel {
	var out []suiteLevel
	for _, k := range levelsInFlight {
		l := suiteLevel{InFlight: k}
		if s, ok := nat.Levels[k]; ok {
			l.Native = &s
		}
		if s, ok := poly.Levels[k]; ok {
			l.Polyfill = &s
		}
		if s, ok := nat.CDPLevels[k]; ok {
			l.CDP = &s
		}
		out = append(out, l)
	}
	return out
}

func fmtVal(v *float64, unit string) string {
	if v == nil {
		return "—"
	}
	switch unit {
	case "calls/s", "fds":
		return strconv.FormatFloat(math.Round(*v), 'f', 0, 64)
	case "MiB":
		return fmt.Sprintf("%.1f", *v)
	case "×":
		if *v < 0.1 {
			return fmt.Sprintf("%.3f×", *v)
		}
		return fmt.Sprintf("%.2f×", *v)
	}
	switch a := math.Abs(*v); {
	case a >= 100:
		return fmt.Sprintf("%.0f", *v)
	case a >= 10:
		return fmt.Sprintf("%.1f", *v)
	case a >= 1:
		return fmt.Sprintf("%.2f", *v)
	}
	return fmt.Sprintf("%.3f", *v)
}

// markdown is results.md: the header, the table of figures, the table of
// calls in flight, the notes and errors.
func (rep *suiteReport) markdown() string {
	var s strings.Builder
	m := rep.Machine
	fmt.Fprintf(&s, "Run %s; tree %s; %s headless; %d × %s", rep.Date, m.Tree, m.Chromium, m.CPUs, m.CPUModel)
	if m.MemoryMiB > 0 {
		fmt.Fprintf(&s, ", %.1f GiB", float64(m.MemoryMiB)/1024)
	}
	fmt.Fprintf(&s, "; %s", m.OS)
	if m.Kernel != "" {
		fmt.Fprintf(&s, " %s", m.Kernel)
	}
	fmt.Fprintf(&s, "; %s; load average at start %s.\n\n", m.Go, m.LoadAvg)
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range rep.Params {
			if !yield(k) {
				return
			}
		}
	})
	var ps []string
	for _, k := range keys {
		ps = append(ps, fmt.Sprintf("%s %d", k, rep.Params[k]))
	}
	fmt.Fprintf(&s, "Parameters: %s.\n\n", strings.Join(ps, ", "))
	s.WriteString("The issue's targets (memory in the native browser; sizes through the native chain):\n\n")
	s.WriteString(rep.summary())
	s.WriteString("\nEvery figure:\n\n")
	s.WriteString("| group | figure | value | unit | CDP | × CDP | target | met | note |\n")
	s.WriteString("| --- | --- | ---: | --- | ---: | ---: | --- | --- | --- |\n")
	for _, r := range rep.Rows {
		met := ""
		if r.Met != nil {
			met = "missed"
			if *r.Met {
				met = "met"
			}
		} else if r.Target != "" {
			met = "—"
		}
		cdp := ""
		if r.CDP != nil {
			cdp = fmtVal(r.CDP, r.Unit)
		}
		ratio := ""
		if r.Ratio != nil {
			ratio = fmtVal(r.Ratio, "×")
		}
		fmt.Fprintf(&s, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			r.Group, r.Name, fmtVal(r.Value, r.Unit), r.Unit, cdp, ratio, r.Target, met, strings.ReplaceAll(r.Note, "|", "\\|"))
	}
	s.WriteString("\nCalls in flight (one MCP client; CDP in the native browser, same tab):\n\n")
	s.WriteString("| in flight | native chain calls/s | p50 ms | p99 ms | polyfill chain calls/s | p50 ms | p99 ms | CDP calls/s | p50 ms | p99 ms |\n")
	s.WriteString("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	cell := func(l *loadStats) string {
		if l == nil {
			return "— | — | —"
		}
		return fmt.Sprintf("%.0f | %.2f | %.2f", l.PerSec, ms(l.P50), ms(l.P99))
	}
	for _, l := range rep.Levels {
		fmt.Fprintf(&s, "| %d | %s | %s | %s |\n", l.InFlight, cell(l.Native), cell(l.Polyfill), cell(l.CDP))
	}
	if len(rep.Notes) > 0 {
		s.WriteString("\nNotes:\n\n")
		for _, n := range rep.Notes {
			fmt.Fprintf(&s, "- %s\n", n)
		}
	}
	if len(rep.Errors) > 0 {
		s.WriteString("\nErrors:\n\n")
		for _, e := range rep.Errors {
			fmt.Fprintf(&s, "- %s\n", e)
		}
	}
	return s.String()
}

// summary is the short table of the targets, for the README: one
// line per target, the native and polyfill chains side by side, and CDP.
func (rep *suiteReport) summary() string {
	byID := map[string]suiteRow{}
	for _, r := range rep.Rows {
		byID[r.ID] = r
	}
	// cell is a row's value, with its ratio to CDP when it has one.
	cell := func(ids ...string) string {
		var parts []string
		for _, id := range ids {
			r, ok := byID[id]
			if !ok {
				continue
			}
			v := fmtVal(r.Value, r.Unit)
			if r.Value != nil {
				v += " " + r.Unit
			}
			if r.Ratio != nil {
				v += " (" + fmtVal(r.Ratio, "×") + ")"
			}
			parts = append(parts, v)
		}
		if len(parts) == 0 {
			return "—"
		}
		return strings.Join(parts, " / ")
	}
	// met is "met" when every row's target is met, "missed (n of m)"
	// when some are missed.
	met := func(ids ...string) string {
		known, missed := 0, 0
		for _, id := range ids {
			if r, ok := byID[id]; ok && r.Met != nil {
				known++
				if !*r.Met {
					missed++
				}
			}
		}
		switch {
		case known == 0:
			return "—"
		case missed == 0:
			return "met"
		}
		return fmt.Sprintf("missed (%d of %d)", missed, known)
	}
	var s strings.Builder
	s.WriteString("| figure | target | native chain | polyfill chain | CDP `WebMCP.invokeTool` | met |\n")
	s.WriteString("| --- | --- | ---: | ---: | ---: | --- |\n")
	line := func(figure, target, nat, poly, cdp, m string) {
		fmt.Fprintf(&s, "| %s | %s | %s | %s | %s | %s |\n", figure, target, nat, poly, cdp, m)
	}
	line("round trip p50", "≤ 1.6× CDP", cell("roundtrip.native.p50"), cell("roundtrip.polyfill.p50"), cell("roundtrip.cdp.p50"),
		met("roundtrip.native.p50", "roundtrip.polyfill.p50"))
	line("round trip p99", "≤ 1.5× CDP", cell("roundtrip.native.p99"), cell("roundtrip.polyfill.p99"), cell("roundtrip.cdp.p99"),
		met("roundtrip.native.p99", "roundtrip.polyfill.p99"))
	line("`executeTool` in the page, mean (p50)", "", cell("inpage.native.mean", "inpage.native.p50"), cell("inpage.polyfill.mean", "inpage.polyfill.p50"), "", "")
	for _, k := range levelsInFlight {
		target, m := "", ""
		if k == 16 {
			target = "≥ 0.5× CDP"
			m = met(fmt.Sprintf("throughput.native.%d", k), fmt.Sprintf("throughput.polyfill.%d", k))
		}
		line(fmt.Sprintf("throughput, %d in flight", k), target, cell(fmt.Sprintf("throughput.native.%d", k)), cell(fmt.Sprintf("throughput.polyfill.%d", k)),
			cell(fmt.Sprintf("throughput.cdp.%d", k)), m)
	}
	line("`registerTool` → `tools/list_changed`, p50 / p99", "≤ 50 ms", cell("listchanged.native.p50", "listchanged.native.p99"),
		cell("listchanged.polyfill.p50", "listchanged.polyfill.p99"), "", met("listchanged.native.p50", "listchanged.native.p99", "listchanged.polyfill.p50", "listchanged.polyfill.p99"))
	line("click → `resources/updated`, p50 / p99", "≤ 100 ms", cell("updated.native.p50", "updated.native.p99"),
		cell("updated.polyfill.p50", "updated.polyfill.p99"), "", met("updated.native.p50", "updated.native.p99", "updated.polyfill.p50", "updated.polyfill.p99"))
	line("shim start → `initialize` answered, p50 / max", "≤ 50 ms", cell("shimstart.initialize.p50", "shimstart.initialize.max"), "", "",
		met("shimstart.initialize.p50", "shimstart.initialize.max"))
	line("shim start → the page's tools listed, p50 / max", "", cell("shimstart.tools.p50", "shimstart.tools.max"), "", "", "")
	for _, p := range []struct{ id, name, limit string }{{"host", "webmcp-host", "15"}, {"shim", "webmcp-shim", "25"}} {
		line(fmt.Sprintf("%s RSS: idle / warm / after %s more calls", p.name, rep.paramText("calls for memory")), "≤ "+p.limit+" MiB, flat",
			cell("rss."+p.id+".idle", "rss."+p.id+".warm", "rss."+p.id+".after"), "", "",
			met("rss."+p.id+".idle", "rss."+p.id+".warm", "rss."+p.id+".after", "rss."+p.id+".growth", "fds."+p.id))
	}
	for _, r := range rep.Rows {
		if r.Group != "sizes" {
			continue
		}
		m := met(r.ID)
		if r.Met != nil && *r.Met && strings.HasPrefix(r.Note, "spilled") {
			m += " (spilled to a file, by design)"
		}
		cdp := ""
		if r.CDP != nil {
			cdp = fmtVal(r.CDP, r.Unit) + " " + r.Unit
		}
		line(r.Name, r.Target, cell(r.ID), "", cdp, m)
	}
	return s.String()
}

// paramText is a parameter of the run, as the table says it.
func (rep *suiteReport) paramText(name string) string {
	v, ok := rep.Params[name]
	if !ok {
		return "?"
	}
	return fmtVal(ptr(float64(v)), "calls/s")
}

// svg is latency.svg: p50 latency (left) and throughput (right) against
// the calls in flight, for the native chain, the polyfill chain and CDP.
func (rep *suiteReport) svg() string {
	type series struct {
		name, color string
		get         func(suiteLevel) *loadStats
	}
	all := []series{
		{"native chain", "#1f6fb4", func(l suiteLevel) *loadStats { return l.Native }},
		{"polyfill chain", "#e8710a", func(l suiteLevel) *loadStats { return l.Polyfill }},
		{"CDP WebMCP.invokeTool", "#2a9d3a", func(l suiteLevel) *loadStats { return l.CDP }},
	}
	const (
		W, H             = 900, 414
		panelW, panelH   = 340, 250
		top              = 84
		leftA, leftB     = 80, 530
		tickFont, labelF = 11, 12
	)
	var s strings.Builder
	fmt.Fprintf(&s, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="Helvetica, Arial, sans-serif">`+"\n", W, H, W, H)
	fmt.Fprintf(&s, `<rect width="%d" height="%d" fill="#fff"/>`+"\n", W, H)
	fmt.Fprintf(&s, `<text x="%d" y="24" font-size="15" font-weight="bold" text-anchor="middle">WebMCP bridge: calls of a trivial tool, one MCP client, by calls in flight</text>`+"\n", W/2)
	m := rep.Machine
	fmt.Fprintf(&s, `<text x="%d" y="44" font-size="11" fill="#555" text-anchor="middle">%s · %s headless · %d × %s · load %s</text>`+"\n",
		W/2, xmlEscape(rep.Date), xmlEscape(strings.SplitN(m.Chromium, " built on", 2)[0]), m.CPUs, xmlEscape(m.CPUModel), xmlEscape(m.LoadAvg))

	panel := func(left int, title, unit string, logY bool, value func(*loadStats) float64) {
		minV, maxV := math.Inf(1), 0.0
		for _, l := range rep.Levels {
			for _, sr := range all {
				if st := sr.get(l); st != nil && value(st) > 0 {
					maxV = math.Max(maxV, value(st))
					minV = math.Min(minV, value(st))
				}
			}
		}
		if maxV == 0 {
			minV, maxV = 1, 10
		}
		x := func(i int) float64 { // the levels are evenly spaced (log scale: 1, 4, 16, 64)
			if len(rep.Levels) < 2 {
				return float64(left) + panelW/2
			}
			return float64(left) + 20 + float64(i)*(panelW-40)/float64(len(rep.Levels)-1)
		}
		var ticks []float64
		var y func(v float64) float64
		if logY {
			// 1, 2, 5 times the powers of ten from below the least to above the most.
			lo := math.Pow(10, math.Floor(math.Log10(minV)))
			hi := math.Pow(10, math.Ceil(math.Log10(maxV)))
			for p := lo; p < hi*1.01; p *= 10 {
				for _, f := range []float64{1, 2, 5} {
					if v := f * p; v >= lo && v <= hi*1.01 {
						ticks = append(ticks, v)
					}
				}
			}
			for len(ticks) > 2 && ticks[1] <= minV {
				ticks = ticks[1:]
			}
			for len(ticks) > 2 && ticks[len(ticks)-2] >= maxV {
				ticks = ticks[:len(ticks)-1]
			}
			l0, l1 := math.Log10(ticks[0]), math.Log10(ticks[len(ticks)-1])
			y = func(v float64) float64 { return float64(top) + panelH - (math.Log10(v)-l0)/(l1-l0)*panelH }
		} else {
			step := niceStep(maxV / 5)
			top5 := math.Max(step, math.Ceil(maxV/step)*step)
			for v := 0.0; v <= top5+step/2; v += step {
				ticks = append(ticks, v)
			}
			y = func(v float64) float64 { return float64(top) + panelH - v/top5*panelH }
		}
		fmt.Fprintf(&s, `<text x="%d" y="%d" font-size="13" font-weight="bold" text-anchor="middle">%s</text>`+"\n", left+panelW/2, top-10, xmlEscape(title))
		for _, v := range ticks {
			fmt.Fprintf(&s, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>`+"\n", left, y(v), left+panelW, y(v))
			fmt.Fprintf(&s, `<text x="%d" y="%.1f" font-size="%d" text-anchor="end" fill="#333">%s</text>`+"\n", left-6, y(v)+4, tickFont, trimFloat(v))
		}
		fmt.Fprintf(&s, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#888"/>`+"\n", left, top, panelW, panelH)
		for i, l := range rep.Levels {
			fmt.Fprintf(&s, `<text x="%.1f" y="%d" font-size="%d" text-anchor="middle" fill="#333">%d</text>`+"\n", x(i), top+panelH+16, tickFont, l.InFlight)
		}
		fmt.Fprintf(&s, `<text x="%d" y="%d" font-size="%d" text-anchor="middle">calls in flight (log scale)</text>`+"\n", left+panelW/2, top+panelH+34, labelF)
		fmt.Fprintf(&s, `<text transform="translate(%d %d) rotate(-90)" font-size="%d" text-anchor="middle">%s</text>`+"\n", left-50, top+panelH/2, labelF, xmlEscape(unit))
		for _, sr := range all {
			var pts []string
			for i, l := range rep.Levels {
				if st := sr.get(l); st != nil {
					pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i), y(value(st))))
				}
			}
			if len(pts) == 0 {
				continue
			}
			fmt.Fprintf(&s, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(pts, " "), sr.color)
			for _, p := range pts {
				xy := strings.Split(p, ",")
				fmt.Fprintf(&s, `<circle cx="%s" cy="%s" r="3.5" fill="%s"/>`+"\n", xy[0], xy[1], sr.color)
			}
		}
	}
	panel(leftA, "p50 latency (log scale)", "milliseconds", true, func(l *loadStats) float64 { return ms(l.P50) })
	panel(leftB, "throughput", "calls per second", false, func(l *loadStats) float64 { return l.PerSec })
	lx := 180
	for _, sr := range all {
		fmt.Fprintf(&s, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"/>`+"\n", lx, H-18, lx+24, H-18, sr.color)
		fmt.Fprintf(&s, `<text x="%d" y="%d" font-size="12">%s</text>`+"\n", lx+30, H-14, xmlEscape(sr.name))
		lx += 200
	}
	s.WriteString("</svg>\n")
	return s.String()
}

// niceStep rounds x up to 1, 2 or 5 times a power of ten.
func niceStep(x float64) float64 {
	if x <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, f := range []float64{1, 2, 5, 10} {
		if f*p >= x {
			return f * p
		}
	}
	return 10 * p
}

func trimFloat(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// writeReport writes results.json, results.md and latency.svg into dir.
func (rep *suiteReport) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("make the output folder: %w", err)
	}
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	for name, body := range map[string][]byte{
		"results.json": append(js, '\n'),
		"results.md":   []byte(rep.markdown()),
		"latency.svg":  []byte(rep.svg()),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	return nil
}

// describeMachine reads the machine's CPUs, memory, load average, the
// Chromium version and the tree's git version.
func describeMachine() machine {
	m := machine{OS: runtime.GOOS + "/" + runtime.GOARCH, CPUs: runtime.NumCPU(), Go: runtime.Version(), CPUModel: "unknown", LoadAvg: "unknown", Tree: "unknown"}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			m.LoadAvg = strings.Join(f[:3], " ")
		}
	} else if out, err := exec.Command("sysctl", "-n", "vm.loadavg").Output(); err == nil {
		m.LoadAvg = strings.Trim(strings.TrimSpace(string(out)), "{} ")
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(b)) {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	} else if out, err := exec.Command("sysctl", "-n", "machdep.cpu.brand_string").Output(); err == nil {
		m.CPUModel = strings.TrimSpace(string(out))
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for line := range strings.Lines(string(b)) {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
				kib, _ := strconv.ParseInt(f[1], 10, 64)
				m.MemoryMiB = kib / 1024
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	if out, err := exec.Command(chromiumPath, "--version").Output(); err == nil {
		m.Chromium = strings.TrimSpace(string(out))
	} else {
		m.Chromium = "unknown (" + err.Error() + ")"
	}
	if out, err := exec.Command("git", "-C", repoRoot, "describe", "--always", "--dirty").Output(); err == nil {
		m.Tree = strings.TrimSpace(string(out))
	}
	return m
}
