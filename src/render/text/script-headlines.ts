/**
 * Headlines the per-script averages are fitted to (script-widths.ts): for each script with one
 * small Noto family and no per-glyph table, a block of code points and real headlines in it.
 * Letters vary per headline (Bengali conjuncts collapse two letters into one glyph, Kannada's
 * post-base forms add width), so each script has at least two, and the widest sets the
 * average. A headline that the fitter once under-counted belongs here: add it and run
 * `npm run fonts:measure`. Only the script's own code points, spaces, ZWJ and ZWNJ: the fit
 * counts nothing else.
 */
export interface ScriptHeadlines {
  name: string;
  first: number;
  last: number;
  /** The letter a vowel sign is measured after. */
  base: string;
  headlines: readonly string[];
}

export const SCRIPT_HEADLINES: readonly ScriptHeadlines[] = [
  {
    name: 'Armenian',
    first: 0x0530,
    last: 0x058f,
    base: 'կ',
    headlines: [
      'Ինչպես կրճատեցինք սառը մեկնարկի ժամանակը ութսուն տոկոսով՝ տառատեսակների ծույլ բեռնման շնորհիվ',
      'Ինչպես կիսով չափ կրճատեցինք մեր կառուցման ժամանակը մանրամասն ուղեցույց շարունակական ինտեգրման համար',
    ],
  },
  {
    name: 'Bengali',
    first: 0x0980,
    last: 0x09ff,
    base: 'ক',
    headlines: [
      'আমরা কীভাবে অলস ফন্ট লোডিং এবং আরও কিছু কৌশল দিয়ে কোল্ড স্টার্টের সময় আশি শতাংশ কমিয়েছি',
      'আমরা কীভাবে আমাদের বিল্ড সময় অর্ধেক করেছি ধারাবাহিক ইন্টিগ্রেশনে ক্যাশিংয়ের একটি বিস্তারিত নির্দেশিকা',
    ],
  },
  {
    name: 'Gurmukhi',
    first: 0x0a00,
    last: 0x0a7f,
    base: 'ਕ',
    headlines: [
      'ਅਸੀਂ ਆਲਸੀ ਫੌਂਟ ਲੋਡਿੰਗ ਅਤੇ ਕੁਝ ਹੋਰ ਤਰੀਕਿਆਂ ਨਾਲ ਕੋਲਡ ਸਟਾਰਟ ਸਮਾਂ ਅੱਸੀ ਪ੍ਰਤੀਸ਼ਤ ਕਿਵੇਂ ਘਟਾਇਆ',
      'ਅਸੀਂ ਆਪਣਾ ਬਿਲਡ ਸਮਾਂ ਅੱਧਾ ਕਿਵੇਂ ਕੀਤਾ ਲਗਾਤਾਰ ਏਕੀਕਰਨ ਵਿੱਚ ਕੈਸ਼ਿੰਗ ਲਈ ਇੱਕ ਵਿਸਤ੍ਰਿਤ ਗਾਈਡ',
    ],
  },
  {
    name: 'Gujarati',
    first: 0x0a80,
    last: 0x0aff,
    base: 'ક',
    headlines: [
      'અમે આળસુ ફોન્ટ લોડિંગ અને કેટલીક અન્ય યુક્તિઓથી કોલ્ડ સ્ટાર્ટ સમય એંસી ટકા કેવી રીતે ઘટાડ્યો',
      'અમે અમારો બિલ્ડ સમય અડધો કેવી રીતે કર્યો સતત એકીકરણમાં કેશિંગ માટે વિગતવાર માર્ગદર્શિકા',
    ],
  },
  {
    name: 'Telugu',
    first: 0x0c00,
    last: 0x0c7f,
    base: 'క',
    headlines: [
      'నిదానమైన ఫాంట్ లోడింగ్‌తో కోల్డ్ స్టార్ట్ సమయాన్ని ఎనభై శాతం ఎలా తగ్గించాము',
      'మా బిల్డ్ సమయాన్ని సగానికి ఎలా తగ్గించాము నిరంతర ఇంటిగ్రేషన్‌లో కాషింగ్ కోసం వివరమైన మార్గదర్శి',
    ],
  },
  {
    name: 'Kannada',
    first: 0x0c80,
    last: 0x0cff,
    base: 'ಕ',
    headlines: [
      'ನಿಧಾನ ಫಾಂಟ್ ಲೋಡಿಂಗ್ ಮೂಲಕ ಕೋಲ್ಡ್ ಸ್ಟಾರ್ಟ್ ಸಮಯವನ್ನು ಎಂಬತ್ತು ಶೇಕಡಾ ಹೇಗೆ ಕಡಿಮೆ ಮಾಡಿದೆವು',
      'ನಮ್ಮ ಬಿಲ್ಡ್ ಸಮಯವನ್ನು ಅರ್ಧಕ್ಕೆ ಹೇಗೆ ಇಳಿಸಿದೆವು ನಿರಂತರ ಏಕೀಕರಣದಲ್ಲಿ ಕ್ಯಾಶಿಂಗ್‌ಗಾಗಿ ವಿವರವಾದ ಮಾರ್ಗದರ್ಶಿ',
    ],
  },
  {
    name: 'Malayalam',
    first: 0x0d00,
    last: 0x0d7f,
    base: 'ക',
    headlines: [
      'അലസമായ ഫോണ്ട് ലോഡിംഗിലൂടെ കോൾഡ് സ്റ്റാർട്ട് സമയം എൺപത് ശതമാനം എങ്ങനെ കുറച്ചു',
      'ഞങ്ങളുടെ ബിൽഡ് സമയം പകുതിയാക്കിയത് എങ്ങനെ തുടർച്ചയായ ഇന്റഗ്രേഷനിലെ കാഷിംഗിനുള്ള വിശദമായ വഴികാട്ടി',
    ],
  },
  {
    name: 'Sinhala',
    first: 0x0d80,
    last: 0x0dff,
    base: 'ක',
    headlines: [
      'කම්මැලි අකුරු පූරණය මගින් සීතල ආරම්භක කාලය සියයට අසූවකින් අඩු කළ ආකාරය',
      'අපගේ ගොඩනැගීමේ කාලය අඩකින් අඩු කළ ආකාරය අඛණ්ඩ ඒකාබද්ධ කිරීමේදී හැඹිලිගත කිරීම සඳහා සවිස්තරාත්මක මාර්ගෝපදේශයක්',
    ],
  },
  {
    name: 'Lao',
    first: 0x0e80,
    last: 0x0eff,
    base: 'ກ',
    headlines: [
      'ພວກເຮົາຫຼຸດເວລາເລີ່ມຕົ້ນແບບເຢັນລົງແປດສິບເປີເຊັນດ້ວຍການໂຫຼດຟອນແບບຂີ້ຄ້ານ',
      'ພວກເຮົາຫຼຸດເວລາສ້າງລົງເຄິ່ງໜຶ່ງໄດ້ແນວໃດ ຄູ່ມືລະອຽດກ່ຽວກັບການເກັບແຄຊໃນການເຊື່ອມໂຍງຢ່າງຕໍ່ເນື່ອງ',
    ],
  },
  {
    name: 'Georgian',
    first: 0x10a0,
    last: 0x10ff,
    base: 'კ',
    headlines: [
      'როგორ შევამცირეთ ცივი გაშვების დრო ოთხმოცი პროცენტით შრიფტების ზარმაცი ჩატვირთვით',
      'როგორ შევამცირეთ აწყობის დრო ორჯერ დეტალური სახელმძღვანელო უწყვეტი ინტეგრაციის ქეშირებისთვის',
    ],
  },
  {
    name: 'Ethiopic',
    first: 0x1200,
    last: 0x139f,
    base: 'ከ',
    headlines: [
      'የቀዝቃዛ ጅምር ጊዜን በሰማንያ በመቶ እንዴት እንደቀነስን፣ በዝግታ የፊደል ጭነት እና ሌሎች ዘዴዎች',
      'የግንባታ ጊዜያችንን በግማሽ እንዴት እንደቀነስን ለቀጣይ ውህደት መሸጎጫ ዝርዝር መመሪያ',
    ],
  },
];
