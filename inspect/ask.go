package inspect

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/internal/strictjson"
	"github.com/omoide/omoide/internal/wire"
	"github.com/omoide/omoide/rerank"
	"github.com/omoide/omoide/retriever"
)

// askForm is the ask page's inputs, each with its error when it has one.
type askForm struct {
	User, Text, Recent, Now, Preset, Why string
	Sens                                 string            // the most private level searched; "": the preset's
	Threshold                            string            // what if the decision's threshold were this (Request.InjectThreshold); "": the preset's
	Request                              string            // a retrieve request's JSON to replay: it fills the fields above
	Errors                               map[string]string // field → what is wrong with it
}

// replayed is the part of a retrieve request's JSON (the REST API's, as a
// bot sends it) that the ask page replays; with_candidates, tz and lang are
// read and need nothing here.
type replayed struct {
	User            string         `json:"user"`
	Text            string         `json:"text"`
	Recent          []wire.Message `json:"recent"`
	Now             string         `json:"now"`
	Preset          string         `json:"preset"`
	InjectThreshold *float64       `json:"inject_threshold"`
	WithCandidates  bool           `json:"with_candidates"`
	TZ              string         `json:"tz"`
	Lang            string         `json:"lang"`
	Filter          *struct {
		MaxSensitivity string          `json:"max_sensitivity"`
		Kinds          json.RawMessage `json:"kinds"`
		States         json.RawMessage `json:"states"`
		MaxAgeDays     json.RawMessage `json:"max_age_days"`
	} `json:"filter"`
}

// replay fills f's fields from its Request, the JSON of a retrieve request,
// or marks the request field with what is wrong with it.
func (f *askForm) replay() {
	var r replayed
	if err := strictjson.DecodeBytesAt([]byte(f.Request), "request", &r); err != nil {
		f.Errors["request"] = "This is no retrieve request: " + err.Error() + "."
		return
	}
	if r.User != "" {
		f.User = r.User
	}
	f.Text, f.Now, f.Preset = r.Text, r.Now, r.Preset
	var lines []string
	for _, m := range r.Recent {
		lines = append(lines, m.Role+": "+strings.ReplaceAll(m.Content, "\n", " "))
	}
	f.Recent = strings.Join(lines, "\n")
	if r.InjectThreshold != nil {
		f.Threshold = strconv.FormatFloat(*r.InjectThreshold, 'f', -1, 64)
	}
	if r.Filter != nil && r.Filter.MaxSensitivity != "" {
		f.Sens = r.Filter.MaxSensitivity
	}
	f.Request = "" // replayed: the fields say it now, and editing one asks again
}

// Err returns the error of a field, "" when it has none.
func (f askForm) Err(field string) string { return f.Errors[field] }

// askView is the ask page's data: the form, and the retrieval as a picture
// once it ran.
type askView struct {
	Form      askForm
	Presets   []string
	Levels    []string // the levels the form may search up to: those the ceiling shows
	Ran       bool
	Person    string // the person's page
	NowUsed   string
	Context   string // where the recent turns came from
	Decision  string
	Declined  string
	Skipped   string
	Any       float64 // the retrieval's probability, when a model decided
	Threshold float64
	Level     float64
	Model     bool
	Evidence  string
	Queries   []queryView
	Arms      []armView
	Cands     []candView
	Stages    []stageView
	Legend    []string
	Injected  int
	WhyNot    *whyView
	Dropped   []droppedView // fused candidates dropped before the ranking: echoes of the recent turns
}

// droppedView is a fused candidate the ranking never saw, and why.
type droppedView struct {
	ID           int64
	Detail, Text string
	Why          string
}

func (v askView) PageTitle() string { return "Ask" }

type queryView struct {
	Label, Text, Match string
	KNN, BM25          int
}

type armView struct {
	Name, Match string
	K           int
	Hits        []armHit
}

type armHit struct {
	Rank      int
	ID        int64
	Score     string
	Text      string
	Detail    string
	Candidate int // its rank among the candidates, 0 when it is none
}

// candView is one ranked candidate: its texts, its score's parts as a
// stacked bar, its probability against the level, and its verdict.
type candView struct {
	Rank      int
	ID        int64
	Detail    string
	Text      string
	When      string
	Score     float64
	Bars      []barView
	Prob      float64
	ProbWidth int
	LevelX    int
	Judged    bool
	Fate, Why string
	Injected  bool
	Raised    bool
	Highlight bool // the episode "why not" asks about
	Parts     string
	// Moved says which features moved the probability most
	// (rerank.Model.Influences): "coverage 0.61 +2.1 · rank 4 −0.9".
	Moved string
}

type barView struct {
	Part     string
	X, Width int
	Value    float64
}

type stageView struct {
	Name  string
	Dur   string
	Width int
}

type whyView struct {
	ID        int64
	Detail    string
	Why       string
	Fate      string
	Injected  bool
	Fused     int
	Candidate int
	Ranks     []armRank
}

type armRank struct {
	Arm  string
	Rank int
}

// Widths of the pictures, in SVG user units.
const (
	barWidth   = 240
	probWidth  = 160
	stageWidth = 240
)

// presetRetriever is a preset's retriever over the memory's store, made on
// first use.
type presetRetriever struct {
	once sync.Once
	mem  *omoide.Memory
	err  error
}

// memoryFor returns the memory that retrieves as preset does over the
// handler's store: the handler's own for "".
func (h *Handler) memoryFor(preset string) (*omoide.Memory, error) {
	if preset == "" {
		return h.mem, nil
	}
	p, err := omoide.LookupPreset(preset)
	if err != nil {
		return nil, err
	}
	v, _ := h.presets.LoadOrStore(preset, &presetRetriever{})
	pr := v.(*presetRetriever)
	pr.once.Do(func() {
		var r *retriever.Retriever
		if r, pr.err = retriever.New(h.mem.Store, p.Retriever); pr.err == nil {
			pack := p.Pack
			pack.Location = h.mem.Pack.Location
			pr.mem = &omoide.Memory{Store: h.mem.Store, Retriever: r, Pack: pack}
		}
	})
	return pr.mem, pr.err
}

// request reads the form into a retrieval, marking each field that is
// wrong; ok is false when one is. sens is the level asked to search up to,
// -1 for the preset's.
func (h *Handler) request(f *askForm) (req retriever.Request, sens episode.Sensitivity, ok bool) {
	sens = -1
	f.Errors = map[string]string{}
	if f.Request != "" {
		if f.replay(); f.Errors["request"] != "" {
			return req, sens, false
		}
	}
	req = retriever.Request{User: f.User, Text: f.Text, WithCandidates: true}
	if f.Threshold != "" {
		th, err := strconv.ParseFloat(f.Threshold, 64)
		if err != nil || !(th >= 0 && th <= 1) {
			f.Errors["threshold"] = fmt.Sprintf("%q is no threshold: write a probability from 0 to 1.", f.Threshold)
		} else {
			req.InjectThreshold = &th
		}
	}
	// The rule a retrieval checks (episode.CheckUser): a name it would refuse
	// is the field's error, not the page's.
	if err := episode.CheckUser(f.User); err != nil {
		f.Errors["user"] = "Name a person: " + strings.TrimPrefix(err.Error(), "user ") + "."
	}
	if strings.TrimSpace(f.Text) == "" {
		f.Errors["text"] = "Write the person's message."
	}
	if f.Recent != "" {
		var ms []wire.Message
		for i, line := range strings.Split(strings.ReplaceAll(f.Recent, "\r\n", "\n"), "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			role, content, found := strings.Cut(strings.Replace(line, "：", ":", 1), ":") // a Japanese keyboard's colon too
			if !found {
				f.Errors["recent"] = fmt.Sprintf("Line %d has no role: write each turn as \"user: …\" or \"assistant: …\".", i+1)
				break
			}
			ms = append(ms, wire.Message{Role: strings.TrimSpace(role), Content: strings.TrimSpace(content)})
		}
		if f.Errors["recent"] == "" {
			msgs, err := wire.Messages(ms)
			if err != nil {
				f.Errors["recent"] = err.Error()
			}
			req.Recent = msgs
			if req.Recent == nil {
				req.Recent = []retriever.Message{}
			}
		}
	}
	if f.Now != "" {
		t, err := parseNow(f.Now, h.zone())
		if err != nil {
			f.Errors["now"] = err.Error()
		}
		req.Now = t
	}
	if f.Preset != "" {
		if _, err := omoide.LookupPreset(f.Preset); err != nil {
			f.Errors["preset"] = fmt.Sprintf("No preset %q: choose %q, %q or the server's.", f.Preset, omoide.PresetDefault, omoide.PresetReference)
		}
	}
	if f.Why != "" {
		if id, err := strconv.ParseInt(f.Why, 10, 64); err != nil || id <= 0 {
			f.Errors["why"] = fmt.Sprintf("%q is no episode id: an id is a positive whole number.", f.Why)
		}
	}
	if f.Sens != "" {
		var err error
		switch sens, err = episode.ParseSensitivity(f.Sens); {
		case err != nil:
			f.Errors["sens"] = err.Error()
		case sens > h.cfg.MaxSensitivity:
			f.Errors["sens"] = fmt.Sprintf("This inspector shows episodes up to %s, not %s.", h.cfg.MaxSensitivity, sens)
		}
	}
	return req, sens, len(f.Errors) == 0
}

// parseNow reads a time as RFC 3339 or as a browser's datetime-local
// (2026-05-01T21:30, in loc: the inspector's zone).
func parseNow(s string, loc *time.Location) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is no time: write RFC 3339, e.g. 2026-05-01T21:30:00+09:00", s)
}

// ask shows the form and, when it names a person and a message, the
// retrieval as a picture.
func (h *Handler) ask(r *http.Request) (view, error) {
	q := r.URL.Query()
	f := askForm{User: q.Get("user"), Text: q.Get("text"), Recent: q.Get("recent"), Now: q.Get("now"), Preset: q.Get("preset"), Why: q.Get("why"), Sens: q.Get("sens"),
		Threshold: q.Get("threshold"), Request: q.Get("request")}
	if w := q.Get("whynot"); w != "" { // a candidate's "why not?", submitting the form as it stands
		f.Why = w
	}
	v := askView{Form: f, Presets: []string{omoide.PresetDefault, omoide.PresetReference}}
	for s := episode.SensitivityNormal; s <= h.cfg.MaxSensitivity; s++ {
		v.Levels = append(v.Levels, s.String())
	}
	if f.Text == "" && f.Recent == "" && f.Now == "" && f.Preset == "" && f.Sens == "" && f.Threshold == "" && f.Request == "" {
		return view{name: "ask", data: v}, nil // the form alone
	}
	req, sens, ok := h.request(&f)
	v.Form = f
	if !ok {
		return view{name: "ask", data: v, status: http.StatusBadRequest}, nil
	}
	switch n, err := h.mem.Store.CountUpTo(r.Context(), req.User, h.cfg.MaxSensitivity); {
	case err != nil:
		return view{}, err
	case n == 0:
		v.Form.Errors = map[string]string{"user": fmt.Sprintf("No person named %q has a memory this inspector shows.", req.User)}
		return view{name: "ask", data: v, status: http.StatusNotFound}, nil
	}
	mem, err := h.memoryFor(f.Preset)
	if err != nil {
		return view{}, err
	}
	if req.Now.IsZero() {
		req.Now = h.cfg.Now()
	}
	filter := h.capped(mem.Retriever.Options().Filter)
	if sens >= 0 {
		filter.MaxSensitivity = sens
	}
	req.Filter = &filter
	section, res, err := mem.EvidenceWith(r.Context(), req, mem.Pack)
	if err != nil {
		return view{}, err
	}
	h.picture(&v, mem, req, res, section)
	if echoes := res.Searches.Echoes; len(echoes) > 0 {
		eps, err := h.mem.Store.GetMany(r.Context(), echoes)
		if err != nil {
			return view{}, err
		}
		for _, e := range eps {
			d := droppedView{ID: e.ID, Detail: v.Person + "/episodes/" + strconv.FormatInt(e.ID, 10), Why: res.Standing(e.ID).Why}
			d.Text, _ = clip(e.UserText, 120)
			v.Dropped = append(v.Dropped, d)
		}
	}
	if f.Why != "" {
		id, _ := strconv.ParseInt(f.Why, 10, 64)
		e, err := h.mem.Store.Get(r.Context(), id)
		if errors.Is(err, episode.ErrNotFound) || err == nil && !h.shows(req.User, e) {
			v.Form.Errors = map[string]string{"why": fmt.Sprintf("%s has no memory %d.", req.User, id)}
			return view{name: "ask", data: v, status: http.StatusNotFound}, nil
		}
		if err != nil {
			return view{}, err
		}
		st, err := mem.Retriever.WhyNot(r.Context(), req, res, id)
		if err != nil {
			return view{}, err
		}
		v.WhyNot = h.whyView(v, res, st)
		for i := range v.Cands {
			v.Cands[i].Highlight = v.Cands[i].ID == id
		}
	}
	return view{name: "ask", data: v}, nil
}

// picture fills v with the retrieval res of req.
func (h *Handler) picture(v *askView, mem *omoide.Memory, req retriever.Request, res retriever.Result, section string) {
	tr, o := res.Trace, mem.Retriever.Options()
	v.Ran, v.Evidence, v.Decision, v.Declined, v.Skipped = true, section, tr.Decision, tr.Declined, tr.Skipped
	v.Person = h.personPath(req.User)
	v.NowUsed = req.Now.In(h.zone()).Format(time.RFC3339)
	v.Context = "the turns given"
	if req.Recent == nil {
		v.Context = "the person's last stored exchanges (none given)"
	}
	in := o.Rank.Inject
	v.Model, v.Any, v.Threshold, v.Level = in.On(), tr.Probability, in.Threshold, in.Level
	if req.InjectThreshold != nil {
		v.Threshold = *req.InjectThreshold
	}
	for i, q := range tr.Queries {
		qv := queryView{Label: fmt.Sprintf("Q%d", i+1), Text: q}
		if i < len(tr.BM25Match) {
			qv.Match = tr.BM25Match[i]
		}
		if i < len(tr.KNNHits) {
			qv.KNN = tr.KNNHits[i]
		}
		if i < len(tr.BM25Hits) {
			qv.BM25 = tr.BM25Hits[i]
		}
		v.Queries = append(v.Queries, qv)
	}
	candRank := map[int64]int{}
	texts := map[int64]string{}
	for i, c := range res.Candidates {
		candRank[c.Episode.ID] = i + 1
		texts[c.Episode.ID], _ = clip(c.Episode.UserText, 60)
	}
	for _, a := range res.Searches.Arms {
		av := armView{Name: a.Name, Match: a.Match, K: a.K}
		for j, m := range a.Hits {
			score := fmt.Sprintf("bm25 %.2f", m.Score)
			if a.Vector {
				score = fmt.Sprintf("cos %.3f", 1-m.Score)
			}
			av.Hits = append(av.Hits, armHit{Rank: j + 1, ID: m.ID, Score: score, Text: texts[m.ID], Candidate: candRank[m.ID],
				Detail: h.personPath(req.User) + "/episodes/" + strconv.FormatInt(m.ID, 10)})
		}
		v.Arms = append(v.Arms, av)
	}
	top := 0.0
	for _, c := range res.Candidates {
		top = max(top, c.Score)
	}
	seen := map[string]bool{}
	for i, c := range res.Candidates {
		cv := candView{Rank: i + 1, ID: c.Episode.ID, Score: c.Score, Prob: c.Probability, Judged: in.On() && i < in.Depth,
			Fate: c.Verdict.Fate.String(), Why: c.Verdict.Why, Injected: c.Verdict.Fate == rerank.FateInjected,
			When: c.Episode.OccurredAt.In(h.zone()).Format("2006-01-02"), Detail: h.personPath(req.User) + "/episodes/" + strconv.FormatInt(c.Episode.ID, 10),
			Parts: fmt.Sprintf("rrf %.3f · lex %.3f · rec %.3f · coverage %.2f · proximity %.2f · lacking %.2f · cosine %.3f",
				c.RRFNorm, c.Lex, c.Rec, c.Coverage, c.Proximity, c.Lacking, c.Cosine)}
		cv.Text, _ = clip(exchange(c.Episode.UserText, c.Episode.ReplyText), 120)
		if cv.Judged && in.Model != nil && i < len(res.Ranked) {
			cv.Moved = moved(in.Model.Influences(rerank.Features(res.Ranked, i, res.Signals, nil), 3))
		}
		cv.Why = strings.TrimPrefix(cv.Why, cv.Fate+" ") // the badge says the fate: "injected (high): …", not "injected injected (high): …"
		if cv.Injected {
			v.Injected++
		}
		x := 0
		for _, ct := range o.Rank.Weights.Contributions(c.Parts) {
			if ct.Value <= 0 || top <= 0 {
				continue
			}
			w := int(ct.Value / top * barWidth)
			if w == 0 {
				continue
			}
			cv.Bars = append(cv.Bars, barView{Part: ct.Part, X: x, Width: w, Value: ct.Value})
			x += w
			if !seen[ct.Part] {
				seen[ct.Part] = true
				v.Legend = append(v.Legend, ct.Part)
			}
		}
		cv.ProbWidth, cv.LevelX = int(c.Probability*probWidth), int(in.Level*probWidth)
		v.Cands = append(v.Cands, cv)
	}
	stages := []struct {
		name string
		d    time.Duration
	}{{"prepare", tr.Prepare}, {"embed", tr.Embed}, {"knn", tr.KNN}, {"bm25", tr.BM25}, {"fuse", tr.Fuse}, {"fetch", tr.Fetch}, {"rerank", tr.Rerank}, {"total", tr.Total}}
	for _, s := range stages {
		w := 0
		if tr.Total > 0 {
			w = int(float64(s.d) / float64(tr.Total) * stageWidth)
		}
		v.Stages = append(v.Stages, stageView{Name: s.name, Dur: fmt.Sprintf("%.3f ms", float64(s.d.Microseconds())/1000), Width: max(w, 1)})
	}
}

// whyView is what the page says of the episode "why not" asks about.
func (h *Handler) whyView(v askView, res retriever.Result, st retriever.Standing) *whyView {
	w := &whyView{ID: st.ID, Why: st.Why, Fused: st.Fused, Candidate: st.Candidate, Injected: st.Verdict.Fate == rerank.FateInjected,
		Detail: v.Person + "/episodes/" + strconv.FormatInt(st.ID, 10)}
	if st.Verdict.Fate != 0 {
		w.Fate = st.Verdict.Fate.String()
	}
	for i, a := range res.Searches.Arms {
		w.Ranks = append(w.Ranks, armRank{Arm: a.Name, Rank: st.Ranks[i]})
	}
	return w
}

// exchange is an episode's two texts on one line, "user / reply", without
// the separator when either is empty.
func exchange(user, reply string) string {
	user, reply = strings.TrimSpace(user), strings.TrimSpace(reply)
	if user == "" || reply == "" {
		return user + reply
	}
	return user + " / " + reply
}

// moved writes influences as "coverage 0.61 +2.1 · rank 4 −0.9": each
// feature, its value and what it did to the log-odds.
func moved(infl []rerank.Influence) string {
	parts := make([]string, len(infl))
	for i, f := range infl {
		parts[i] = fmt.Sprintf("%s %s %+.1f", f.Feature, strconv.FormatFloat(f.Value, 'g', 3, 64), f.LogOdds)
	}
	return strings.Join(parts, " · ")
}
