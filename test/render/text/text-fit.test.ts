import type { Renderer } from '@takumi-rs/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { FALLBACK_FAMILIES, FAMILY } from '../../../src/render/text/fonts.js';
import { fontStack, lineHeightFor } from '../../../src/render/text/script.js';
import { type FitBox, fitText } from '../../../src/render/text/text-fit.js';
import type { FaceKey } from '../../../src/render/text/text-metrics.js';
import { sharedEngine } from '../../helpers/engine.js';
import { LONG_HEADLINES } from '../template/long-headlines.js';

const BOX: FitBox = {
  face: 'sans-800',
  steps: [
    [72, 2],
    [60, 3],
    [48, 4],
    [40, 5],
  ],
  width: 900,
  height: 400,
  lineHeight: 1.1,
};

describe('fitText', () => {
  it('keeps display size for a short title', () => {
    expect(fitText('Hello world', BOX)).toMatchObject({ fontSize: 72, lines: 1, overflows: false });
  });

  it('shrinks step by step as the text grows', () => {
    const sizes = [20, 60, 120, 180].map((n) => fitText('word '.repeat(n / 5).trim(), BOX).fontSize);
    expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
    expect(sizes[0]).toBe(72);
    expect(sizes[3]).toBeLessThan(60);
  });

  it('never allows more lines than the height holds', () => {
    const fit = fitText('word '.repeat(200), { ...BOX, height: 100 });
    expect(fit.maxLines * fit.fontSize * BOX.lineHeight).toBeLessThanOrEqual(100);
    expect(fit.overflows).toBe(true);
  });

  it('cuts overflowing text itself at a word boundary with an ellipsis when asked (RTL)', () => {
    const text = 'وقت بدء التشغيل '.repeat(30).trim();
    const fit = fitText(text, BOX, true);
    expect(fit.overflows).toBe(true);
    expect(fit.text.endsWith('…')).toBe(true);
    expect(fit.text.length).toBeLessThan(text.length);
    expect(text.startsWith(fit.text.slice(0, -1).trimEnd())).toBe(true);
    expect(fit.text.at(-2)).not.toBe(' ');
  });

  it('counts an unbroken token as breaking anywhere', () => {
    const fit = fitText(`https://example.com/${'a'.repeat(180)}`, BOX);
    expect(fit.lines).toBeGreaterThan(1);
  });
});

/** Paragraphs in every script the service promises, measured by takumi's own layout. */
const CORPUS: Record<string, string> = {
  en: 'How we cut our cold-start time by 80% with lazy font loading and a few other tricks nobody told us about',
  url: `https://example.com/${'a'.repeat(150)}`,
  zh: '我们如何将冷启动时间缩短百分之八十：延迟加载字体以及其他一些没人告诉过我们的技巧和经验分享',
  ja: 'コールドスタート時間を80%短縮した方法：フォントの遅延読み込みと誰も教えてくれなかったいくつかのコツ',
  ko: '우리가 지연 폰트 로딩과 아무도 알려주지 않은 몇 가지 요령으로 콜드 스타트 시간을 80% 줄인 방법',
  ar: 'كيف قللنا وقت بدء التشغيل البارد بنسبة ثمانين بالمئة من خلال التحميل الكسول للخطوط وبعض الحيل الأخرى',
  he: 'איך קיצרנו את זמן ההפעלה הקרה בשמונים אחוז בעזרת טעינה עצלה של גופנים ועוד כמה טריקים',
  hi: 'हमने आलसी फ़ॉन्ट लोडिंग और कुछ अन्य तरकीबों से कोल्ड स्टार्ट समय को अस्सी प्रतिशत तक कैसे कम किया',
  th: 'เราลดเวลาเริ่มต้นแบบเย็นลงแปดสิบเปอร์เซ็นต์ด้วยการโหลดฟอนต์แบบขี้เกียจและเคล็ดลับอื่นๆ อีกเล็กน้อย',
  bn: 'আমরা কীভাবে অলস ফন্ট লোডিং এবং আরও কিছু কৌশল দিয়ে কোল্ড স্টার্টের সময় আশি শতাংশ কমিয়েছি',
  pa: 'ਅਸੀਂ ਆਲਸੀ ਫੌਂਟ ਲੋਡਿੰਗ ਅਤੇ ਕੁਝ ਹੋਰ ਤਰੀਕਿਆਂ ਨਾਲ ਕੋਲਡ ਸਟਾਰਟ ਸਮਾਂ ਅੱਸੀ ਪ੍ਰਤੀਸ਼ਤ ਕਿਵੇਂ ਘਟਾਇਆ',
  gu: 'અમે આળસુ ફોન્ટ લોડિંગ અને કેટલીક અન્ય યુક્તિઓથી કોલ્ડ સ્ટાર્ટ સમય એંસી ટકા કેવી રીતે ઘટાડ્યો',
  ta: 'சோம்பேறி எழுத்துரு ஏற்றுதல் மூலம் குளிர் தொடக்க நேரத்தை எண்பது சதவீதம் எப்படி குறைத்தோம்',
  te: 'నిదానమైన ఫాంట్ లోడింగ్‌తో కోల్డ్ స్టార్ట్ సమయాన్ని ఎనభై శాతం ఎలా తగ్గించాము',
  kn: 'ನಿಧಾನ ಫಾಂಟ್ ಲೋಡಿಂಗ್ ಮೂಲಕ ಕೋಲ್ಡ್ ಸ್ಟಾರ್ಟ್ ಸಮಯವನ್ನು ಎಂಬತ್ತು ಶೇಕಡಾ ಹೇಗೆ ಕಡಿಮೆ ಮಾಡಿದೆವು',
  ml: 'അലസമായ ഫോണ്ട് ലോഡിംഗിലൂടെ കോൾഡ് സ്റ്റാർട്ട് സമയം എൺപത് ശതമാനം എങ്ങനെ കുറച്ചു',
  si: 'කම්මැලි අකුරු පූරණය මගින් සීතල ආරම්භක කාලය සියයට අසූවකින් අඩු කළ ආකාරය',
  lo: 'ພວກເຮົາຫຼຸດເວລາເລີ່ມຕົ້ນແບບເຢັນລົງແປດສິບເປີເຊັນດ້ວຍການໂຫຼດຟອນແບບຂີ້ຄ້ານ',
  my: 'ဖောင့်များကို နှေးကွေးစွာ တင်ခြင်းဖြင့် စတင်ချိန်ကို ရာခိုင်နှုန်း ရှစ်ဆယ် လျှော့ချခဲ့ပုံ',
  km: 'របៀបដែលយើងកាត់បន្ថយពេលវេលាចាប់ផ្ដើមត្រជាក់ប៉ែតសិបភាគរយ ដោយការផ្ទុកពុម្ពអក្សរយឺតៗ',
  hy: 'Ինչպես կրճատեցինք սառը մեկնարկի ժամանակը ութսուն տոկոսով՝ տառատեսակների ծույլ բեռնման շնորհիվ',
  ka: 'როგორ შევამცირეთ ცივი გაშვების დრო ოთხმოცი პროცენტით შრიფტების ზარმაცი ჩატვირთვით',
  am: 'የቀዝቃዛ ጅምር ጊዜን በሰማንያ በመቶ እንዴት እንደቀነስን፣ በዝግታ የፊደል ጭነት እና ሌሎች ዘዴዎች',
  ru: 'Как мы сократили время холодного старта на восемьдесят процентов с помощью ленивой загрузки шрифтов',
  el: 'Πώς μειώσαμε τον χρόνο ψυχρής εκκίνησης κατά ογδόντα τοις εκατό με την τεμπέλικη φόρτωση γραμματοσειρών',
};
const FACES: Record<FaceKey, [string, number]> = {
  'sans-400': [FAMILY.sans, 400],
  'sans-800': [FAMILY.sans, 800],
  'serif-700': [FAMILY.serif, 700],
};

describe('the width estimate against takumi layout', () => {
  let engine: Renderer;
  beforeAll(async () => {
    engine = await sharedEngine();
  });

  it('never predicts fewer lines than takumi draws, and rarely more than one extra', async () => {
    const size = 56;
    const lineHeight = 1.25;
    let exact = 0;
    let total = 0;
    for (const [face, [family, weight]] of Object.entries(FACES) as [FaceKey, [string, number]][]) {
      for (const [lang, text] of Object.entries(CORPUS)) {
        for (const width of [1000, 600]) {
          const measured = await engine.measure(
            {
              type: 'text',
              text,
              style: {
                fontFamily: fontStack(text, family),
                fontSize: size,
                fontWeight: weight,
                width,
                lineHeight,
                overflowWrap: 'anywhere',
              },
            },
            { fontFamilies: [...FALLBACK_FAMILIES] },
          );
          const actual = Math.round(measured.height / (size * lineHeight));
          const estimate = fitText(text, { face, steps: [[size, 99]], width, height: 1e6, lineHeight }).lines;
          expect(estimate, `${face} ${lang} @${width}px`).toBeGreaterThanOrEqual(actual);
          expect(estimate, `${face} ${lang} @${width}px`).toBeLessThanOrEqual(actual + 1);
          total++;
          if (estimate === actual) exact++;
        }
      }
    }
    expect(exact / total).toBeGreaterThan(0.6);
  });

  // A plan one line short lets takumi draw a line the box has no room for: the paragraph then
  // ends in an ellipsis at a size it should have shrunk from (or, unclamped, is cut by its frame).
  it('plans enough lines for long headlines at the title sizes and widths the templates use', async () => {
    for (const [script, text] of Object.entries(LONG_HEADLINES)) {
      for (const [size, width] of [
        [36, 572],
        [44, 572],
        [50, 572],
        [44, 940],
        [50, 940],
        [64, 940],
        [48, 1000],
        [60, 1000],
      ] as const) {
        const lineHeight = lineHeightFor(text, 1.08);
        const measured = await engine.measure(
          {
            type: 'text',
            text,
            style: {
              fontFamily: fontStack(text, FAMILY.sans),
              fontSize: size,
              fontWeight: 800,
              width,
              lineHeight,
              overflowWrap: 'anywhere',
            },
          },
          { fontFamilies: [...FALLBACK_FAMILIES] },
        );
        const actual = Math.round(measured.height / (size * lineHeight));
        const box = { face: 'sans-800', steps: [[size, 99]], width, height: 1e6, lineHeight } as const;
        expect(fitText(text, box).lines, `${script} ${size}px @${width}px`).toBeGreaterThanOrEqual(actual);
      }
    }
  });
});
