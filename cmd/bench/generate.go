package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/omoide/omoide/dataset"
)

// The generator writes Japanese-like chat exchanges from small word lists:
// grammatical enough for kagome to segment and varied enough for the indexes
// to hold a realistic number of distinct terms. It is for latency and smoke
// tests only; its text means nothing.
var (
	genNouns = strings.Fields(`ラーメン 寿司 カレー パン ケーキ コーヒー 紅茶 ビール お酒 うどん 蕎麦 焼肉 天ぷら
		餃子 オムライス 駅前 公園 図書館 映画館 美術館 水族館 動物園 海 山 川 温泉 京都 大阪 北海道 沖縄 東京
		神戸 横浜 名古屋 福岡 会社 学校 病院 スーパー コンビニ 本屋 カフェ 居酒屋 友達 姉 兄 妹 弟 母 父 祖母
		上司 同僚 先輩 後輩 猫 犬 ハムスター 金魚 映画 ドラマ アニメ 漫画 小説 音楽 ライブ コンサート ゲーム
		サッカー 野球 テニス ジョギング ヨガ 水泳 登山 キャンプ 釣り 旅行 料理 掃除 洗濯 買い物 引っ越し 試験
		仕事 会議 出張 残業 誕生日 結婚式 お祭り 花火 桜 紅葉 雪 雨 台風 風邪 頭痛 腰 膝 歯医者 眼鏡 自転車
		電車 バス 車 飛行機 新幹線 スマホ パソコン カメラ 時計 財布 鞄 靴 服 帽子 傘 ピアノ ギター 絵 写真 日記
		ブログ 英語 数学 歴史 宿題 資格 面接 転職 給料 貯金 家賃 部屋 庭 花 野菜 果物 りんご みかん 苺 スイカ`)
	genPlaces = strings.Fields(`駅前 近所 実家 会社の近く 商店街 ショッピングモール 海辺 山奥 都心 田舎 大学 友達の家`)
	genTimes  = strings.Fields(`昨日 今日 先週 週末 この前 さっき 今朝 昨夜 去年 先月 来週 明日`)
	genVerbs  = [][2]string{ // past, volitional-ish
		{"食べた", "食べたい"}, {"見た", "見たい"}, {"行った", "行きたい"}, {"買った", "買いたい"},
		{"作った", "作りたい"}, {"始めた", "始めたい"}, {"やめた", "やめたい"}, {"読んだ", "読みたい"},
		{"聞いた", "聞きたい"}, {"撮った", "撮りたい"}, {"探した", "探したい"}, {"話した", "話したい"},
		{"練習した", "練習したい"}, {"予約した", "予約したい"}, {"片付けた", "片付けたい"}, {"調べた", "調べたい"},
	}
	genAdjs    = strings.Fields(`楽しかった 美味しかった 大変だった 疲れた 面白かった 寒かった 暑かった 懐かしかった 難しかった 最高だった 微妙だった 感動した`)
	genReplies = []string{
		"いいね！%sはどうだった？", "それは%sね。また聞かせてね。", "%sって素敵だね！", "無理しないでね、%sは大事だよ。",
		"へえ、%sなんだ。知らなかった！", "%sの話、もっと聞きたいな。", "よかったね！%sは久しぶり？", "%sか、私も気になる！",
	}
)

// generator produces deterministic episodes.
type generator struct {
	r *rand.Rand
}

func newGenerator(seed uint64) *generator {
	return &generator{r: rand.New(rand.NewPCG(seed, 0x67656e))}
}

func (g *generator) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }

// sentence returns one Japanese-like utterance and its main noun.
func (g *generator) sentence() (string, string) {
	n := g.pick(genNouns)
	v := genVerbs[g.r.IntN(len(genVerbs))]
	switch g.r.IntN(5) {
	case 0:
		return fmt.Sprintf("%sは%sで%sと%sを%s。%s", g.pick(genTimes), g.pick(genPlaces), g.pick(genNouns), n, v[0], g.pick(genAdjs)), n
	case 1:
		return fmt.Sprintf("%s、%sを%sんだけど%sよ", g.pick(genTimes), n, v[0], g.pick(genAdjs)), n
	case 2:
		return fmt.Sprintf("そろそろ%sで%sを%sな。%sも一緒に", g.pick(genPlaces), n, v[1], g.pick(genNouns)), n
	case 3:
		return fmt.Sprintf("%sの%sが%s", n, g.pick(genNouns), g.pick(genAdjs)), n
	}
	return fmt.Sprintf("%sに%sのことを%s。%sって%sね", g.pick(genTimes), n, v[0], g.pick(genNouns), g.pick(genAdjs)), n
}

// episodes returns n episodes of the given users (round robin over blocks of
// consecutive exchanges), evenly spaced (at most 37 minutes apart) over at
// most 300 days ending at end, so that a 365-day window holds them all.
func (g *generator) episodes(n int, users []string, end time.Time) []dataset.Episode {
	out := make([]dataset.Episode, n)
	step := min(37*time.Minute, 300*24*time.Hour/time.Duration(max(n, 1)))
	for i := range out {
		text, noun := g.sentence()
		reply := fmt.Sprintf(genReplies[g.r.IntN(len(genReplies))], noun)
		u := users[i*len(users)/n]
		out[i] = dataset.Episode{ID: fmt.Sprintf("gen:%d", i), User: u, UserText: text, ReplyText: reply,
			OccurredAt: end.Add(-time.Duration(n-1-i) * step).Truncate(time.Second)}
	}
	return out
}
