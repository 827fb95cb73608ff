import { expect } from 'chai';
import { detectLanguage } from '../../../src/inference/translation/detect-language.js';

describe('detectLanguage', () => {
  const cases: [string, string][] = [
    ['The weather is nice and the sun is shining.', 'en'],
    ['El tiempo es bueno y hace sol en la ciudad.', 'es'],
    ['Le temps est beau et les enfants jouent dans le parc.', 'fr'],
    ['Das Wetter ist schön und die Kinder spielen.', 'de'],
    ['Il tempo è bello e i bambini giocano con il cane.', 'it'],
    ['O tempo está bom e as crianças não querem sair.', 'pt'],
    ['Hola', 'es'],
    ['今天天气很好。', 'zh'],
    ['今日はいい天気ですね。', 'ja'],
    ['오늘 날씨가 좋네요.', 'ko'],
    ['Сегодня хорошая погода.', 'ru'],
    ['Сьогодні гарна погода, і діти грають.', 'uk'],
    ['الطقس جميل اليوم', 'ar'],
    ['Ο καιρός είναι ωραίος.', 'el'],
    ['आज मौसम अच्छा है।', 'hi'],
  ];
  for (const [text, language] of cases) {
    it(`detects ${language}: ${text}`, () => expect(detectLanguage(text)).to.equal(language));
  }

  it('answers undefined rather than guessing for text without known words', () => {
    expect(detectLanguage('Xyzzy plugh 12345')).to.equal(undefined);
  });
});
