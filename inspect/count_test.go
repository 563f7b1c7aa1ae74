package inspect

import "testing"

func TestCount(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string
	}{
		{0, "0 memories"}, {1, "1 memory"}, {2, "2 memories"}, {999, "999 memories"},
		{1000, "1,000 memories"}, {100000, "100,000 memories"}, {1234567, "1,234,567 memories"}, {-1200, "-1,200 memories"},
	} {
		if got := count(tt.n, "memory", "memories"); got != tt.want {
			t.Errorf("count(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestExchange(t *testing.T) {
	for _, tt := range []struct{ user, reply, want string }{
		{"熱がある", "お大事に", "熱がある / お大事に"},
		{"熱がある", "", "熱がある"},
		{"", "要約: 熱が続いた", "要約: 熱が続いた"},
		{" 熱 ", "  ", "熱"},
	} {
		if got := exchange(tt.user, tt.reply); got != tt.want {
			t.Errorf("exchange(%q, %q) = %q, want %q", tt.user, tt.reply, got, tt.want)
		}
	}
}

func TestTextLang(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"駅前のラーメン屋", "ja"}, {"味噌拉面", "zh"}, {"今天吃了拉面吗", "zh"}, {"오늘 라면 먹었어", "ko"}, {"had ramen", "en"}, {"", "en"},
	} {
		if got := textLang(tt.text); got != tt.want {
			t.Errorf("textLang(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}
