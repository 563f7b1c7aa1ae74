package memorypack

import (
	"strings"
	"unicode/utf8"
)

// Section is one of the caller's blocks of the pack: persona, profile, facts,
// instructions and so on.
//
// A section is rendered as "[Name]" (when Name is set) and Text (when set),
// joined with "\n", then terminated with "\n\n"; a section with neither is
// left out. So Section{Name: "STABLE_FACTS", Text: "- a\n- b"} renders as
// "[STABLE_FACTS]\n- a\n- b\n\n" and Section{Name: "OPEN_LOOPS"} as
// "[OPEN_LOOPS]\n\n", exactly as the reference's section() does. Put a header
// of another shape in Text and leave Name empty.
type Section struct {
	Name string
	Text string
}

// block returns the section's text before its "\n\n" terminator.
func (s Section) block() string {
	switch {
	case s.Name == "":
		return s.Text
	case s.Text == "":
		return "[" + s.Name + "]"
	}
	return "[" + s.Name + "]\n" + s.Text
}

// Assemble builds the pack: the sections in order, then the evidence (a
// RenderEvidence result) last, as in the reference. Every non-empty block is
// followed by "\n\n", so the blocks are separated by a blank line and the pack
// ends with "\n\n".
//
// budget is the pack's maximum length in code points (not bytes), terminators
// included; budget <= 0 means no limit. When the pack is over budget, the
// evidence is dropped as a whole, the reference behaviour. The caller's
// sections are never cut or dropped: if they alone exceed the budget they are
// returned whole, over budget, and the caller decides what to shorten
// (compare utf8.RuneCountInString(pack) with budget).
//
// kept reports whether the evidence is in the pack; it is false when
// evidence is "". A missing or dropped evidence section leaves nothing in the
// pack (the reference leaves its bare "[EPISODE_EVIDENCE]\n\n" header).
func Assemble(budget int, evidence string, sections ...Section) (pack string, kept bool) {
	base := renderSections(sections)
	if evidence == "" {
		return base, false
	}
	if p := base + evidence + "\n\n"; fits(p, budget) {
		return p, true
	}
	return base, false
}

// AssembleTrimmed is Assemble with per-episode trimming, an alternative to the
// reference's all-or-nothing drop. items are taken to be in rank order, best
// first, as the retriever returns them. While the pack is over budget, the
// lowest-ranked episode is dropped and the evidence rendered again; once the
// remaining items no longer pass ShouldInject (e.g. a single Medium), the
// whole evidence section is dropped. The caller's sections are treated as in
// Assemble.
//
// kept is the number of leading items rendered in the pack (0 when the
// evidence was dropped or never injected).
func AssembleTrimmed(budget int, items []Evidence, opts Options, sections ...Section) (pack string, kept int) {
	base := renderSections(sections)
	for n := len(items); n > 0; n-- {
		ev := RenderEvidence(items[:n], opts)
		if ev == "" {
			break
		}
		if p := base + ev + "\n\n"; fits(p, budget) {
			return p, n
		}
	}
	return base, 0
}

func renderSections(sections []Section) string {
	var b strings.Builder
	for _, s := range sections {
		if blk := s.block(); blk != "" {
			b.WriteString(blk)
			b.WriteString("\n\n")
		}
	}
	return b.String()
}

func fits(pack string, budget int) bool {
	return budget <= 0 || utf8.RuneCountInString(pack) <= budget
}
