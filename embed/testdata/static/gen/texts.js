// Texts for the static-embedding fixtures, written for this suite (no
// third-party corpus). Every model gets every text: `short` first, then the
// per-model unknown-only text chosen in gen.js, then `long()`.
'use strict';

const short = [
  // Japanese
  '今日は朝から雨が降っていて、駅まで歩くのが大変だった。',
  '来週の月曜日に歯医者の予約を入れておいてください。',
  '猫が窓辺で丸くなって昼寝をしている。',
  'この前話していた本、図書館で借りられたよ。',
  '東京から大阪まで新幹線でおよそ二時間半かかります。',
  'カレーを作るときは玉ねぎをじっくり炒めるのがコツです。',
  '明日の会議は十時からに変更になりました。',
  'ひらがなだけでかいたみじかいぶんです',
  'カタカナダケデカイタミジカイブンデス',
  'お誕生日おめでとう！素敵な一年になりますように。',
  '冷蔵庫に牛乳がもうないから、帰りに買ってきて。',
  '富士山に登ったのは三年前の夏でした。',
  // Chinese (simplified and traditional)
  '我明天要去北京出差，大概三天后回来。',
  '这家餐厅的饺子非常好吃，价格也不贵。',
  '請問最近的地鐵站怎麼走？',
  '他每天早上六点起床跑步。',
  '周末我们一起去公园散步吧。',
  '学习一门新语言需要耐心和坚持。',
  '我的手机没电了，可以借一下充电器吗？',
  // Korean
  '오늘 저녁에 같이 밥 먹을래요?',
  '서울의 겨울은 생각보다 훨씬 춥습니다.',
  '내일 아침 아홉 시에 회의가 있어요.',
  '이 책은 정말 재미있어서 하루 만에 다 읽었어요.',
  '고양이가 소파 위에서 자고 있어요.',
  '주말에 부산에 있는 친구를 만나러 가요.',
  // English
  'The quick brown fox jumps over the lazy dog.',
  'Please remind me to call my sister on Friday evening.',
  'I left my umbrella at the coffee shop near the station.',
  'Machine learning models can be surprisingly small and fast.',
  "Don't forget: the meeting starts at 9:30 a.m. sharp!",
  "She's been learning to play the piano since 2019.",
  'HELLO WORLD IN CAPITAL LETTERS',
  'mail someone@example.com or open https://example.org/path?q=1&lang=ja',
  'Numbers: 3.14159, 2,718, -42, 1e10 and 100%.',
  // Mixed scripts
  '明日はGoogle Meetで10時からmeetingです。',
  'iPhone 15 Proを買いました、とても気に入っています。',
  '私はPythonとGoでプログラムを書きます。',
  '我喜欢吃寿司 and ramen，特别是在东京。',
  '한국어와 日本語와 English를 섞어서 씁니다.',
  '東京 Tokyo 도쿄 东京',
  '「こんにちは」と彼は言った。"Hello," he said.',
  // Emoji
  '今日は楽しかった😊🎉',
  'Pizza 🍕 and beer 🍺 tonight?',
  '👨‍👩‍👧‍👦 家族で旅行に行きました',
  '🙂🙃😉',
  // Full-width and half-width forms, compatibility characters
  'ＡＢＣ１２３　全角の英数字です',
  'ｶﾀｶﾅの半角カナも混ぜてみる',
  '（括弧）と！？の全角記号',
  'Ｈｅｌｌｏ，　Ｗｏｒｌｄ！',
  'ß ﬁ ﬀ Ⅻ ① ㍻ ㌔',
  'Ünïcödé àccents: café, naïve, résumé',
  // Special-token spellings inside ordinary text
  'literal <unk> and [UNK] and <s> </s> [CLS] <mask> inside text',
  // Edge cases
  '',
  '   ',
  '\t\n  \n',
  '\u3000\u3000',
  'a',
  '。',
  '    leading and trailing spaces    ',
  'repeat repeat repeat repeat repeat',
];

// Prose for the long texts, cycled until the wanted length.
const longJa = [
  '朝の散歩は気持ちがいい。',
  '川沿いの道を歩くと、季節の花がたくさん咲いている。',
  '途中のパン屋で焼きたてのクロワッサンを買った。',
  '家に帰ってからコーヒーをいれて、新聞を読みながら食べた。',
  '午後は友だちと映画を見に行く約束がある。',
  '夜は早めに寝て、明日の準備をしよう。',
];
const longEn = [
  'Incomprehensibilities notwithstanding, the extraordinarily knowledgeable',
  'international representatives communicated straightforwardly.',
  'Internationalization and characterization responsibilities',
  'were unquestionably overwhelming for the administration.',
];
const longKo = ['한국어 문장이 여기부터 이어집니다. ', '긴 글의 뒷부분은 잘려서 보이지 않을 수도 있어요. '];

function cycle(parts, sep, minCodePoints) {
  let out = '';
  for (let i = 0; [...out].length < minCodePoints; i++) {
    out += (i > 0 ? sep : '') + parts[i % parts.length];
  }
  return out;
}

// Long texts for model2vec's character cut (512 * median token length code
// points) and its 512-token cap.
function long() {
  return [
    // ~3000 code points of Japanese: after the cut there are still more than
    // 512 tokens, so the token cap applies.
    cycle(longJa, '', 3000),
    // Long English words first, then Korean: the character cut drops the
    // Korean tail while fewer than 512 tokens remain.
    cycle(longEn, ' ', 1300) + ' ' + cycle(longKo, '', 1700),
    // 600 astral-plane code points (1200 UTF-16 units) before the words: a
    // cut counted in UTF-16 units keeps fewer words than one counted in code
    // points, as Python does.
    '🍣'.repeat(600) + ' ' + cycle(longEn, ' ', 1200) + ' ' + cycle(longJa, '', 800),
  ];
}

module.exports = { short, long };
