package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/omoide/omoide/dataset"
	"github.com/omoide/omoide/salience"
)

// ratedRow is one rated exchange: its suite, whether its person is in the
// judged half, its features and its rating over dataset.MaxSalience.
type ratedRow struct {
	suite  string
	judged bool
	x      []float64
	y      float64
}

// salienceFlags are the flags of bench salience.
type salienceFlags struct {
	f   suiteFlags
	out string
	l2  float64
}

// runSalience fits the salience model (package salience) on the ratings of
// every suite that has them (dataset.SalienceFile), the people of no judged
// half, and reports it on the judged halves and on each suite left out.
func runSalience(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var sf salienceFlags
	fs := newFlagSet("salience", stderr)
	sf.f.register(fs)
	fs.StringVar(&sf.out, "o", "", "write the fitted model (JSON) to this `file` (salience/model.json ships)")
	fs.Float64Var(&sf.l2, "l2", 1, "the weights' shrinkage")
	if err := parse(fs, args); err != nil {
		return err
	}
	dirs, err := suiteDirs(sf.f.suites, sf.f.evalDirs)
	if err != nil {
		return err
	}
	var rows []ratedRow
	var rated []string
	for _, dir := range dirs {
		ratings, err := dataset.ReadRatings(dir)
		if err != nil {
			return err
		}
		if ratings == nil {
			continue
		}
		s, err := dataset.LoadSuite(dir)
		if err != nil {
			return err
		}
		n := 0
		for _, e := range s.Episodes {
			r, ok := ratings[e.ID]
			if !ok {
				continue
			}
			n++
			rows = append(rows, ratedRow{suite: s.Name, judged: slices.Contains(s.Judged, e.User),
				x: salience.Features(e.UserText, e.ReplyText, nil), y: float64(r) / dataset.MaxSalience})
		}
		if n < len(ratings) {
			return fmt.Errorf("%s: %d of its %d ratings name no exchange of the suite", dir, len(ratings)-n, len(ratings))
		}
		fmt.Fprintf(stderr, "%s: %d rated exchanges\n", s.Name, n)
		rated = append(rated, s.Name)
	}
	if len(rated) == 0 {
		return fmt.Errorf("%w: no suite of -eval/-suite has %s", errUsage, dataset.SalienceFile)
	}
	m, err := fitSalience(rows, func(r ratedRow) bool { return !r.judged }, sf.l2)
	if err != nil {
		return err
	}
	t := &table{header: []string{"suite", "fit", "n", "AUC ≥2", "AUC ≥1", "mean rating/3", "mean salience", "calibration error"}, left: 2}
	for _, s := range rated {
		t.add(salienceRow(s, "fit half, all suites", m, rows, func(r ratedRow) bool { return r.suite == s && r.judged })...)
	}
	for _, s := range rated {
		if len(rated) < 2 {
			break
		}
		lo, err := fitSalience(rows, func(r ratedRow) bool { return r.suite != s }, sf.l2)
		if err != nil {
			return err
		}
		t.add(salienceRow(s, "the other suites", lo, rows, func(r ratedRow) bool { return r.suite == s })...)
	}
	fmt.Fprintln(stdout, "salience on people no fit saw (the judged halves) and on each suite left out")
	fmt.Fprintln(stdout)
	t.write(stdout, sf.f.md)
	w := &table{header: []string{"feature", "weight"}, left: 1}
	for i, name := range m.Features {
		w.add(name, fmt.Sprintf("%+.3f", m.Weights[i]))
	}
	w.add("bias", fmt.Sprintf("%+.3f", m.Bias))
	fmt.Fprintln(stdout)
	w.write(stdout, sf.f.md)
	if sf.out == "" {
		return nil
	}
	m.About = map[string]any{"command": "bench salience " + strings.Join(args, " "), "commit": commit(), "suites": rated,
		"fit": "the people of no judged half, each suite weighing alike", "l2": sf.l2}
	b, err := m.Encode()
	if err != nil {
		return err
	}
	if err := os.WriteFile(sf.out, b, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "model: %s\n", sf.out)
	return nil
}

// fitSalience fits the model on the rows include admits, each suite's rows
// weighing alike in all.
func fitSalience(rows []ratedRow, include func(ratedRow) bool, l2 float64) (*salience.Model, error) {
	per := map[string]int{}
	for _, r := range rows {
		if include(r) {
			per[r.suite]++
		}
	}
	var xs [][]float64
	var ys, ws []float64
	for _, r := range rows {
		if include(r) {
			xs, ys, ws = append(xs, r.x), append(ys, r.y), append(ws, 1000/float64(per[r.suite]))
		}
	}
	return salience.Fit(xs, ys, ws, l2)
}

// salienceRow is a line of the report: how m ranks and calibrates the rows
// of of: the AUC of the rated 2 and 3 against the rest and of the rated
// against the everyday, the mean rating and salience, and the calibration
// error in ten bins of salience.
func salienceRow(suite, fit string, m *salience.Model, rows []ratedRow, of func(ratedRow) bool) []string {
	var ps, ys []float64
	var hi, any []bool
	for _, r := range rows {
		if of(r) {
			p := m.Probability(r.x)
			ps, ys = append(ps, p), append(ys, r.y)
			hi, any = append(hi, r.y >= 2.0/dataset.MaxSalience-1e-9), append(any, r.y > 0)
		}
	}
	if len(ps) == 0 {
		return []string{suite, fit, "0", "-", "-", "-", "-", "-"}
	}
	return []string{suite, fit, fmt.Sprint(len(ps)), f3(salience.AUC(ps, hi)), f3(salience.AUC(ps, any)), f3(mean(ys)), f3(mean(ps)), f3(calibrationError(ps, ys, 10))}
}

// calibrationError is Σ over equal-width bins of salience of the bin's share
// times |mean target − mean salience|.
func calibrationError(ps, ys []float64, bins int) float64 {
	n, sp, sy := make([]float64, bins), make([]float64, bins), make([]float64, bins)
	for i, p := range ps {
		k := min(bins-1, int(p*float64(bins)))
		n[k]++
		sp[k] += p
		sy[k] += ys[i]
	}
	e := 0.0
	for k := range n {
		if n[k] > 0 {
			e += n[k] / float64(len(ps)) * math.Abs(sy[k]/n[k]-sp[k]/n[k])
		}
	}
	return e
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
