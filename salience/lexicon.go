package salience

// The word lists of the text's parts, in the form timeexpr.Normalize gives
// (NFKC, lower case). A CJK word matches anywhere in the text; a word of
// ASCII letters matches whole words only, its last letters free when it ends
// in "*" ("moved" is "mov*" no more than "move", so each form is listed).
// They say what an exchange holds, not whether it is worth remembering: the
// model's weights (model.json), fitted on people's ratings, say that.
var lexicon = map[part][]string{
	// A life event: what changes a person's life and a friend asks about
	// months later.
	partEvent: {
		// Japanese.
		"引っ越", "引越", "転職", "退職", "辞めた", "辞める", "やめた", "入社", "就職", "内定", "合格", "受かった", "落ちた", "不合格",
		"別れた", "別れる", "付き合", "告白", "結婚", "婚約", "プロポーズ", "離婚", "妊娠", "出産", "生まれ", "手術", "入院", "退院",
		"診断", "亡くな", "死んだ", "他界", "葬式", "お葬式", "事故", "骨折", "迎えた", "飼い始め", "卒業", "入学", "昇進", "異動",
		"転勤", "留学", "契約", "解約", "初めて", "はじめて",
		// Chinese.
		"搬家", "辞职", "辭職", "离职", "離職", "入职", "跳槽", "录取", "錄取", "考上", "没考上", "分手", "结婚", "結婚", "订婚", "离婚",
		"怀孕", "懷孕", "生了", "出生", "手术", "手術", "住院", "出院", "确诊", "去世", "过世", "葬礼", "车祸", "車禍", "领养", "領養",
		"毕业", "畢業", "升职", "升職", "被裁", "裁员", "第一次", "求婚", "表白", "在一起",
		// Korean.
		"이사", "퇴사", "그만뒀", "그만두", "입사", "취업", "취직", "합격", "붙었", "떨어졌", "헤어졌", "헤어지", "사귀", "고백", "결혼",
		"약혼", "프러포즈", "이혼", "임신", "출산", "태어났", "수술", "입원", "퇴원", "진단", "돌아가셨", "세상을 떠", "장례", "사고",
		"골절", "입양", "데려왔", "졸업", "입학", "승진", "발령", "유학", "처음으로",
		// English.
		"moved", "moving", "move", "quit", "fired", "laid", "hired", "promoted", "promotion", "accepted", "rejected",
		"admitted", "broke", "dumped", "engaged", "married", "wedding", "divorce", "divorced", "pregnant", "born",
		"surgery", "hospital", "diagnosed", "diagnosis", "passed", "died", "funeral", "accident", "adopted", "adopt",
		"graduated", "graduation", "offer", "proposed", "resigned", "first",
	},
	// Health: an illness, an injury, a doctor.
	partHealth: {
		"病院", "熱", "風邪", "痛", "薬", "検査", "医者", "歯医者", "怪我", "けが", "体調", "インフル", "コロナ", "花粉", "点滴", "治療",
		"医院", "发烧", "發燒", "感冒", "疼", "药", "藥", "检查", "檢查", "医生", "醫生", "受伤", "受傷", "身体", "过敏", "治疗",
		"병원", "열이", "감기", "아파", "아프", "약을", "검사", "의사", "치과", "다쳤", "몸이", "독감", "코로나", "치료",
		"sick", "fever", "flu", "pain", "hurt", "hurts", "doctor", "dentist", "meds", "medicine", "injury", "injured",
		"allergy", "covid", "clinic", "therapy", "treatment", "er",
	},
	// Work and school.
	partWork: {
		"仕事", "会社", "上司", "課長", "部長", "先輩", "後輩", "同僚", "会議", "プロジェクト", "プレゼン", "試験", "テスト", "受験", "学校",
		"大学", "授業", "レポート", "面接", "バイト", "残業", "出張", "資格", "研究", "論文", "締め切り", "締切",
		"工作", "公司", "老板", "领导", "領導", "同事", "开会", "開會", "项目", "項目", "考试", "考試", "学校", "大学", "論文", "论文",
		"面试", "面試", "加班", "出差", "实习", "實習", "老师", "老師", "作业", "作業",
		"회사", "상사", "팀장", "부장", "선배", "동료", "회의", "프로젝트", "발표", "시험", "학교", "대학", "수업", "과제", "면접", "알바",
		"야근", "출장", "자격증", "논문", "마감",
		"work", "boss", "job", "office", "meeting", "project", "presentation", "exam", "exams", "test", "class",
		"school", "college", "university", "interview", "shift", "deadline", "thesis", "coworker", "manager",
	},
	// Family and the people close to a person.
	partFamily: {
		"母", "父", "お母さん", "お父さん", "ママ", "パパ", "妹", "弟", "姉", "兄", "彼氏", "彼女", "夫", "妻", "旦那", "嫁", "息子", "娘",
		"祖母", "祖父", "おばあちゃん", "おじいちゃん", "友達", "親友", "家族", "子ども", "子供", "甥", "姪",
		"妈", "媽", "爸", "姐", "哥", "弟弟", "妹妹", "男朋友", "女朋友", "对象", "老公", "老婆", "儿子", "兒子", "女儿", "女兒",
		"奶奶", "爷爷", "外婆", "姥姥", "朋友", "闺蜜", "家人", "孩子",
		"엄마", "아빠", "어머니", "아버지", "언니", "누나", "오빠", "형", "동생", "남친", "여친", "남자친구", "여자친구", "남편", "아내",
		"와이프", "아들", "딸", "할머니", "할아버지", "친구", "가족", "아이",
		"mom", "mum", "dad", "mother", "father", "sister", "brother", "boyfriend", "girlfriend", "husband", "wife",
		"son", "daughter", "grandma", "grandpa", "friend", "family", "kids", "kid", "niece", "nephew", "partner",
	},
	// Pets.
	partPet: {
		"犬", "猫", "ペット", "わんこ", "にゃんこ", "うさぎ", "ハムスター", "インコ",
		"狗", "猫", "宠物", "寵物", "兔子", "仓鼠",
		"강아지", "고양이", "반려", "햄스터", "토끼",
		"dog", "cat", "puppy", "kitten", "pet", "vet", "hamster", "rabbit", "bunny",
	},
	// Home and what is bought to keep: a flat, a car, a big purchase.
	partHome: {
		"部屋", "マンション", "アパート", "実家", "家賃", "車", "買った", "購入", "ローン", "貯金",
		"房子", "租房", "房租", "老家", "车", "車子", "买了", "買了", "贷款", "存款",
		"집", "원룸", "월세", "전세", "본가", "차를", "샀", "구매", "대출", "적금",
		"apartment", "flat", "house", "rent", "lease", "car", "bought", "buy", "mortgage", "loan", "savings",
	},
	// A plan: what the person will do, on a day or soon.
	partPlan: {
		"予定", "来週", "来月", "来年", "今度", "つもり", "予約", "明後日", "週末", "行ってくる", "する予定",
		"打算", "下周", "下週", "下个月", "下個月", "明年", "准备", "準備", "计划", "計劃", "预约", "預約", "周末", "週末",
		"예정", "다음 주", "다음주", "다음 달", "다음달", "내년", "계획", "예약", "주말", "할 거", "갈 거",
		"plan", "plans", "planning", "next", "going", "gonna", "booked", "tomorrow", "weekend", "will",
	},
	// The companion's answer to news: congratulation or sympathy.
	partCares: {
		"おめでとう", "お大事に", "大変だったね", "大丈夫", "心配", "残念", "お悔やみ",
		"恭喜", "保重", "早日康复", "没事吧", "沒事吧", "难过", "難過", "节哀", "節哀",
		"축하", "괜찮아", "힘들었", "걱정", "몸조리", "속상",
		"congrats", "congratulations", "sorry", "hope", "proud", "heal", "recovery",
	},
	// A greeting or parting.
	partGreeting: {
		"おはよう", "おはよ", "こんにちは", "こんばんは", "おやすみ", "ただいま", "おかえり", "行ってきます", "いってきます", "またね", "お疲れ",
		"おつかれ", "よろしく",
		"早上好", "早安", "晚安", "你好", "在吗", "在嗎", "我回来了", "我回來了", "拜拜",
		"안녕", "좋은 아침", "잘자", "잘 자", "굿모닝", "다녀왔", "다녀올게", "수고",
		"morning", "night", "goodnight", "hi", "hey", "hello", "bye", "gm", "gn",
	},
	// Laughter and reactions.
	partReaction: {
		"笑", "www", "草", "ウケる", "やばい", "ヤバい", "まじ", "マジ", "すごい", "すご", "いいね",
		"哈哈", "笑死", "绝了", "絕了", "太好了", "好吧", "天哪", "牛",
		"ㅋㅋ", "ㅎㅎ", "ㅠㅠ", "대박", "헐", "짱", "웃겨",
		"lol", "lmao", "haha", "omg", "wow", "nice", "cool", "yay", "ugh",
	},
	// The weather and the season.
	partWeather: {
		"寒い", "寒く", "暑い", "暑く", "雨", "雪", "天気", "晴れ", "台風", "湿気", "蒸し暑",
		"冷", "热死", "熱死", "下雨", "下雪", "天气", "天氣", "晴天", "台风", "颱風", "闷热",
		"춥", "추워", "덥", "더워", "비가", "눈이", "날씨", "맑", "태풍", "습해",
		"cold", "hot", "rain", "raining", "snow", "snowing", "weather", "sunny", "humid", "freezing",
	},
	// Today's meals and snacks.
	partMeal: {
		"ご飯", "ごはん", "朝ごはん", "昼ごはん", "晩ごはん", "夜ご飯", "ランチ", "お昼", "夕飯", "晩飯", "おやつ", "コンビニ", "食べた", "飲んだ",
		"午饭", "午飯", "晚饭", "晚飯", "早饭", "早飯", "外卖", "外賣", "吃了", "喝了", "零食", "奶茶",
		"점심", "저녁", "아침", "배달", "먹었", "마셨", "간식", "라면",
		"lunch", "dinner", "breakfast", "snack", "ate", "eating", "coffee", "takeout",
	},
	// Tired, sleepy, bored: how today feels.
	partTired: {
		"眠い", "ねむい", "疲れ", "つかれ", "だるい", "ひま", "暇", "めんどくさ", "眠れない",
		"困了", "好困", "累", "无聊", "無聊", "好烦", "好煩", "睡不着", "睡不著",
		"피곤", "졸려", "졸리", "심심", "귀찮", "힘들", "잠이 안",
		"tired", "sleepy", "bored", "exhausted", "lazy", "meh",
	},
}
