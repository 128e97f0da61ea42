/**
 * Long headlines in scripts whose widths or line breaks the fitter once got wrong: it planned
 * four lines where takumi drew five, and the paragraph's clip frame cut the fifth through its
 * marks, just above the subtitle, with no ellipsis.
 */
export const LONG_HEADLINES: Record<string, string> = {
  hindi: 'हमने अपने बिल्ड समय को आधा कैसे किया: निरंतर एकीकरण में कैशिंग के लिए एक विस्तृत फ़ील्ड गाइड और सीखें',
  khmer: 'របៀបដែលយើងកាត់បន្ថយពេលវេលាសាងសង់របស់យើងពាក់កណ្តាល៖ មគ្គុទ្ទេសក៍លម្អិតសម្រាប់ការរក្សាទុកឃ្លាំងសម្ងាត់',
  myanmar: 'ကျွန်ုပ်တို့၏ တည်ဆောက်ချိန်ကို တစ်ဝက်လျှော့ချနည်း၊ စဉ်ဆက်မပြတ် ပေါင်းစည်းမှုတွင် ကက်ရှ်အသုံးပြုခြင်းအတွက် အသေးစိတ်လမ်းညွှန်',
  thai: 'เราลดเวลาเริ่มต้นแบบเย็นลงแปดสิบเปอร์เซ็นต์ด้วยการโหลดฟอนต์แบบขี้เกียจ และเคล็ดลับอื่นๆ อีกเล็กน้อยที่ไม่มีใครบอกเรา',
  tamil:
    'நாங்கள் எங்கள் கட்டமைப்பு நேரத்தை எவ்வாறு பாதியாகக் குறைத்தோம்: தொடர்ச்சியான ஒருங்கிணைப்பில் தற்காலிக சேமிப்புக்கான விரிவான வழிகாட்டி',
};
