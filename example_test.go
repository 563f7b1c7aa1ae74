package omoide_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/omoide/omoide"
	"github.com/omoide/omoide/episode"
	"github.com/omoide/omoide/retriever"
)

// A companion stores each exchange after it happens and, before each reply,
// asks for the evidence worth putting in the prompt.
func ExampleMemory_Evidence() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "omoide-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// Location is the person's time zone: of "先週" and of the evidence dates.
	tokyo := time.FixedZone("JST", 9*60*60)
	mem, err := omoide.Open(ctx, omoide.Config{Path: filepath.Join(dir, "memory.db"), Location: tokyo})
	if err != nil {
		log.Fatal(err)
	}
	defer mem.Close()

	day := func(d, h int) time.Time { return time.Date(2025, 6, d, h, 0, 0, 0, tokyo) }
	_, err = mem.Add(ctx,
		episode.Episode{User: "haruka", UserText: "駅前に新しいラーメン屋ができたから行ってきた", ReplyText: "いいね！味はどうだった？", OccurredAt: day(2, 19)},
		episode.Episode{User: "haruka", UserText: "味噌ラーメンが濃厚でおいしかった", ReplyText: "また行きたくなるね", OccurredAt: day(2, 19)},
		episode.Episode{User: "haruka", UserText: "来週から引っ越しの準備をするんだ", ReplyText: "大変だね、手伝えることがあったら言ってね", OccurredAt: day(9, 21)},
	)
	if err != nil {
		log.Fatal(err)
	}

	now := day(20, 20) // the request's clock; time.Now() in a live backend
	recent := []retriever.Message{{Role: "assistant", Content: "おかえり！今日はどうだった？"}}
	section, _, err := mem.Evidence(ctx, retriever.Request{User: "haruka", Text: "この前のラーメン屋、また行きたいな", Now: now, Recent: recent})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(section)

	// A message that is only a time reference returns that window's
	// episodes; thanks and aizuchi skip retrieval, so nothing is injected.
	for _, text := range []string{"先週何話したっけ", "ありがとう！"} {
		section, res, err := mem.Evidence(ctx, retriever.Request{User: "haruka", Text: text, Now: now, Recent: recent})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("\n%s → %d hits, section %d bytes\n", text, len(res.Hits), len(section))
		for _, h := range res.Hits {
			fmt.Printf("  %s %s\n", h.Episode.OccurredAt.In(tokyo).Format("2006-01-02"), h.Episode.UserText)
		}
	}
	// Output:
	// [EPISODE_EVIDENCE]
	// 以下は現在の会話に関連する過去のやりとりです。
	//
	// [2025-06-02]
	// User: 「駅前に新しいラーメン屋ができたから行ってきた」
	// Partner: 「いいね！味はどうだった？」
	//
	// 先週何話したっけ → 1 hits, section 240 bytes
	//   2025-06-09 来週から引っ越しの準備をするんだ
	//
	// ありがとう！ → 0 hits, section 0 bytes
}
