package omoide_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/memorypack"
	"github.com/omoide/omoide/retriever"
)

// TestEvidenceIntroFollowsTheMessage: the default preset introduces the
// evidence in the language of the person's message; a Pack with an intro of
// its own keeps it, and the reference preset keeps the reference's Japanese.
func TestEvidenceIntroFollowsTheMessage(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 5, 1, 20, 0, 0, 0, time.UTC)
	eps := []episode.Episode{
		{User: "u", UserText: "I ran my first half marathon today", ReplyText: "Amazing!", OccurredAt: at},
		{User: "u", UserText: "今天跑了第一个半程马拉松", ReplyText: "太棒了", OccurredAt: at.Add(time.Hour)},
		{User: "u", UserText: "오늘 첫 하프 마라톤을 뛰었어", ReplyText: "대단해", OccurredAt: at.Add(2 * time.Hour)},
		{User: "u", UserText: "今日は初めてハーフマラソンを走った", ReplyText: "すごい！", OccurredAt: at.Add(3 * time.Hour)},
	}
	messages := []struct{ text, intro string }{
		{"how did my first half marathon go?", memorypack.IntroFor("")},
		{"我的第一个半程马拉松跑得怎么样？", "以下是与当前对话相关的过往对话。"},
		{"첫 하프 마라톤 어땠더라?", "다음은 현재 대화와 관련된 과거 대화입니다."},
		{"初めてのハーフマラソンどうだったっけ？", memorypack.DefaultIntro},
	}
	for _, c := range []struct {
		name  string
		cfg   omoide.Config
		fixed string // the intro every message gets, "" when it follows the message
	}{
		{"default", omoide.Config{}, ""},
		{"an intro of its own", omoide.Config{Pack: memorypack.Options{Intro: "Memories:"}}, "Memories:"},
		{"reference", omoide.Config{Preset: omoide.PresetReference}, memorypack.DefaultIntro},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.cfg.Path = filepath.Join(t.TempDir(), "m.db")
			mem, err := omoide.Open(ctx, c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer mem.Close()
			if _, err := mem.Store.Add(ctx, eps); err != nil {
				t.Fatal(err)
			}
			for _, m := range messages {
				section, _, err := mem.Evidence(ctx, retriever.Request{User: "u", Text: m.text, Now: at.AddDate(0, 0, 1), Recent: []retriever.Message{}})
				if err != nil {
					t.Fatal(err)
				}
				want := m.intro
				if c.fixed != "" {
					want = c.fixed
				}
				lines := strings.Split(section, "\n")
				if len(lines) < 2 || lines[1] != want {
					t.Errorf("%s: intro %q, want %q (section %q)", m.text, lines[min(1, len(lines)-1)], want, section)
				}
			}
		})
	}
}
