/**
 * The message catalogs of clients/shell/activate.sh (DESIGN §30): every message is a single-quoted literal that
 * the script only ever passes to printf as an argument, so a translation must not be able to end its quotes, run
 * anything or read as a format; every language says every message of English with the same placeholders; and the
 * script's own plural rule, language choice and filling are checked by running its messages block in sh.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const script = readFileSync(new URL('../../clients/shell/activate.sh', import.meta.url), 'utf8');
const blockStart = script.indexOf('# === messages (DESIGN §30)');
const blockEnd = script.indexOf('# === end of messages');
const block = script.slice(blockStart, blockEnd);
const outsideBlock = script.slice(0, blockStart) + script.slice(blockEnd);

/** The script's catalog function names, and the language tag each one speaks (for Intl). */
const languages: Record<string, string> = {
  en: 'en',
  es: 'es',
  ru: 'ru',
  id: 'id',
  tr: 'tr',
  zh_Hans: 'zh-Hans',
  fa: 'fa',
  ar: 'ar',
};

const PLURAL_CATEGORIES = ['zero', 'one', 'two', 'few', 'many', 'other'];
const PLURAL_KEY = new RegExp(`^(.+)_(${PLURAL_CATEGORIES.join('|')})$`);

/** Each catalog as key → template; a line of a catalog that is not `key) template='…' ;;` is an error. */
function readCatalogs(): { catalogs: Map<string, Map<string, string>>; malformed: string[] } {
  const catalogs = new Map<string, Map<string, string>>();
  const malformed: string[] = [];
  const functionPattern = /^catalog_([A-Za-z_]+)\(\) \{\n {2}case "\$1" in\n([\s\S]*?)\n {2}esac\n\}$/gm;
  for (const [, language, body] of block.matchAll(functionPattern)) {
    const entries = new Map<string, string>();
    for (const line of (body ?? '').split('\n')) {
      const entry = /^ {4}([a-z0-9_]+)\) template='([^'\n]*)' ;;$/.exec(line);
      if (!entry) malformed.push(`${language}: ${line}`);
      else entries.set(entry[1] as string, entry[2] as string);
    }
    catalogs.set(language as string, entries);
  }
  return { catalogs, malformed };
}

const { catalogs, malformed } = readCatalogs();
const english = catalogs.get('en') ?? new Map<string, string>();

const placeholders = (template: string) => [...new Set(template.match(/%[1-9]/g) ?? [])].sort();

/** The whole numbers 0…200 each plural category of a language holds (its rule repeats past 100). */
function integersByCategory(tag: string): Map<string, number[]> {
  const rules = new Intl.PluralRules(tag);
  const byCategory = new Map<string, number[]>();
  for (let n = 0; n <= 200; n++) {
    const category = rules.select(n);
    byCategory.set(category, [...(byCategory.get(category) ?? []), n]);
  }
  return byCategory;
}

/** Runs the messages block in sh (dash where it is /bin/sh) with a driver after it; its stdout. */
function runBlock(driver: string, env: Record<string, string> = {}): string {
  const result = spawnSync('sh', ['-c', `${block}\n${driver}`], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
  });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return result.stdout;
}

describe('the catalogs of activate.sh', () => {
  it('hold one catalog per language of DESIGN §30, each line a key and a single-quoted literal', () => {
    expect([...catalogs.keys()].sort()).toEqual(Object.keys(languages).sort());
    expect(malformed).toEqual([]);
    expect(english.size).toBeGreaterThan(50);
  });

  it('refuse a quote, backslash, backtick, dollar, stray percent sign, control or bidi character in every message', () => {
    const refused: string[] = [];
    for (const [language, entries] of catalogs) {
      for (const [key, template] of entries) {
        const problems = [
          template.includes("'") && 'a single quote',
          template.includes('\\') && 'a backslash',
          template.includes('`') && 'a backtick',
          template.includes('$') && 'a dollar sign (no $( nor ${ either)',
          /%(?![1-9])/.test(template) && 'a % that is not a placeholder %1…%9',
          // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is refused
          /[\u0000-\u001f\u007f]/.test(template) && 'a control character',
          /[\u202a-\u202e\u2066-\u2069]/.test(template) &&
            'a bidi override or isolate (the script isolates values itself)',
        ].filter(Boolean);
        for (const problem of problems) refused.push(`${language} ${key}: ${problem}`);
      }
    }
    expect(refused).toEqual([]);
  });

  it('write Persian with Persian letters (ی ک) and Arabic with Arabic ones (ي ك), which look alike but search apart', () => {
    const persian = [...(catalogs.get('fa')?.values() ?? [])].join('');
    const arabic = [...(catalogs.get('ar')?.values() ?? [])].join('');
    expect(persian.match(/[\u064a\u0643]/g) ?? []).toEqual([]);
    expect(arabic.match(/[\u06cc\u06a9]/g) ?? []).toEqual([]);
    expect(persian).toContain('\u200c'); // ZWNJ, which Persian words need (می‌شود), is allowed
  });

  it('give every language every key of English and no other, with the same placeholders', () => {
    const plainKeys = [...english.keys()].filter((key) => !PLURAL_KEY.test(key));
    for (const [language, entries] of catalogs) {
      const keys = [...entries.keys()].filter((key) => !PLURAL_KEY.test(key));
      expect(keys.sort(), `${language}: keys`).toEqual([...plainKeys].sort());
      for (const key of plainKeys) {
        expect(placeholders(entries.get(key) ?? ''), `${language} ${key}: placeholders`).toEqual(
          placeholders(english.get(key) ?? ''),
        );
      }
    }
  });

  it('give every counted word the plural forms its language has for whole numbers (CLDR, through Intl), and only those', () => {
    const bases = [...new Set([...english.keys()].flatMap((key) => PLURAL_KEY.exec(key)?.[1] ?? []))];
    expect(bases.sort()).toEqual(['count_hours', 'count_minutes', 'count_seconds']);
    for (const [language, entries] of catalogs) {
      const byCategory = integersByCategory(languages[language] as string);
      for (const base of bases) {
        const forms = [...entries.keys()].filter((key) => key.startsWith(`${base}_`) && PLURAL_KEY.test(key));
        expect(forms.sort(), `${language} ${base}: forms`).toEqual(
          [...byCategory.keys()].map((c) => `${base}_${c}`).sort(),
        );
        for (const [category, numbers] of byCategory) {
          const form = entries.get(`${base}_${category}`) ?? '';
          // A form for exactly one number may spell it out (Arabic «ساعتين», two hours); any other shows it.
          const expected = numbers.length === 1 && !form.includes('%1') ? [] : ['%1'];
          expect(placeholders(form), `${language} ${base}_${category}`).toEqual(expected);
        }
      }
    }
  });

  it('are all used by the script, and every message the script names is in the English catalog', () => {
    const code = outsideBlock
      .split('\n')
      .filter((line) => !/^\s*#/.test(line))
      .map((line) => line.replace(/ # .*$/, ''))
      .join('\n');
    const named = [
      ...[...code.matchAll(/\bmsg(?:_text)? +([^\s;|)]+)/g)].map((m) => m[1] as string),
      ...[...code.matchAll(/\bdie +\S+ +([^\s;|)]+)/g)].map((m) => m[1] as string),
      ...[...code.matchAll(/\bactivation_request +([^\s;|)]+)/g)].map((m) => m[1] as string),
      ...[...code.matchAll(/\b[a-z_]+_key=([a-z_]+)/g)].map((m) => m[1] as string),
    ].filter((key) => !key.startsWith('"$'));
    expect(named.filter((key) => !english.has(key))).toEqual([]);
    // Nothing says a sentence of its own past the catalogs: `say` prints for `msg` alone.
    expect(code.split('\n').filter((line) => /\bsay\b/.test(line))).toEqual([
      `say() { printf '%s\\n' "activate.sh: $*" >&2; }`,
      'msg() { say "$(msg_text "$@")"; }',
    ]);
    // The script and the functions of the messages block: where a key is used (count_words names a counted word).
    const users = code + block.slice(0, block.indexOf('# --- catalogs'));
    const unused = [...english.keys()].filter((key) => {
      const base = PLURAL_KEY.exec(key)?.[1];
      const used = base?.startsWith('count_') ? `count_words ${base.slice('count_'.length)}` : key;
      return !new RegExp(`\\b${used}\\b`).test(users);
    });
    expect(unused).toEqual([]);
  });
});

describe('the messages block of activate.sh, run in sh', () => {
  it('places every whole number from 0 to 200 in the plural category Intl.PluralRules gives, in every language', () => {
    for (const [language, tag] of Object.entries(languages)) {
      const rules = new Intl.PluralRules(tag);
      const output = runBlock(
        `MESSAGE_LANGUAGE=${language}; n=0; while [ "$n" -le 200 ]; do plural_category "$n"; n=$((n + 1)); done`,
      );
      const expected = Array.from({ length: 201 }, (_, n) => rules.select(n));
      expect(output.trim().split('\n'), language).toEqual(expected);
    }
  });

  it('says durations with the form each number takes', () => {
    const say = (language: string, seconds: number) =>
      runBlock(`have_terminal() { return 1; }; MESSAGE_LANGUAGE=${language}; retry_wait_words ${seconds}`);
    expect(say('en', 1)).toBe('1 second');
    expect(say('en', 61)).toBe('2 minutes');
    expect(say('en', 3600)).toBe('1 hour');
    expect(say('en', 7980)).toBe('2 hours 13 minutes');
    expect(say('ru', 1260)).toBe('21 минуту');
    expect(say('ru', 120)).toBe('2 минуты');
    expect(say('ru', 660)).toBe('11 минут');
    expect(say('ru', 7980)).toBe('2 часа 13 минут');
    expect(say('es', 3660)).toBe('1 hora y 1 minuto');
    expect(say('zh_Hans', 180)).toBe('3 分钟');
  });

  it('fills %1…%9 in one pass: a value holding a placeholder or a format is printed as it is', () => {
    const output = runBlock(`MESSAGE_LANGUAGE=en; msg_text lock_busy '%2 %s \\n' '/state' '/lock'`);
    expect(output).toBe(
      'another activate.sh (process %2 %s \\n) is using /state: wait for it to end (if no such process runs, remove /lock)',
    );
  });

  it('isolates each value (FSI … PDI) in Persian and Arabic, and no value in the other languages', () => {
    const driver = (language: string) =>
      `have_terminal() { return 1; }; LANG=${language}; choose_language; msg_text install_confirmed act_1`;
    expect(runBlock(driver('ar_EG.UTF-8'))).toBe('تم تأكيد التثبيت (\u2068act_1\u2069)');
    expect(runBlock(driver('es_ES.UTF-8'))).toBe('instalación confirmada (act_1)');
  });

  it('chooses the language from LC_ALL, then LC_MESSAGES, then LANG, in UTF-8 only, Persian and Arabic never on a terminal', () => {
    const chosen = (env: Record<string, string>, terminal = false) =>
      runBlock(
        `have_terminal() { return ${terminal ? 0 : 1}; }; choose_language; printf '%s' "$MESSAGE_LANGUAGE"`,
        env,
      );
    expect(chosen({})).toBe('en');
    expect(chosen({ LANG: 'C.UTF-8' })).toBe('en');
    expect(chosen({ LANG: 'es_MX.UTF-8' })).toBe('es');
    expect(chosen({ LANG: 'es_ES.UTF-8', LC_MESSAGES: 'ru_RU.UTF-8' })).toBe('ru');
    expect(chosen({ LANG: 'es_ES.UTF-8', LC_MESSAGES: 'ru_RU.UTF-8', LC_ALL: 'tr_TR.UTF-8' })).toBe('tr');
    expect(chosen({ LANG: 'es_ES.UTF-8', LC_ALL: 'C' })).toBe('en');
    expect(chosen({ LANG: 'id_ID.utf8' })).toBe('id');
    expect(chosen({ LANG: 'zh' })).toBe('zh_Hans');
    expect(chosen({ LANG: 'zh_SG.UTF-8' })).toBe('zh_Hans');
    expect(chosen({ LANG: 'zh_TW.UTF-8' })).toBe('en');
    expect(chosen({ LANG: 'ru_RU.KOI8-R' })).toBe('en');
    expect(chosen({ LANG: 'de_DE.UTF-8' })).toBe('en');
    expect(chosen({ LANG: 'fa_IR.UTF-8' })).toBe('fa');
    expect(chosen({ LANG: 'ar_SA.UTF-8@latin' })).toBe('ar');
    expect(chosen({ LANG: 'fa_IR.UTF-8' }, true)).toBe('en');
    expect(chosen({ LANG: 'ar_EG.UTF-8' }, true)).toBe('en');
  });

  it('takes a yes in the person’s language, and y or yes in any', () => {
    const yes = (language: string, answer: string) =>
      runBlock(`MESSAGE_LANGUAGE=${language}; if answer_is_yes '${answer}'; then echo yes; else echo no; fi`).trim();
    expect(yes('es', 'sí')).toBe('yes');
    expect(yes('ru', 'да')).toBe('yes');
    expect(yes('tr', 'e')).toBe('yes');
    expect(yes('ru', 'y')).toBe('yes');
    expect(yes('es', 'no')).toBe('no');
    expect(yes('en', '')).toBe('no');
    expect(yes('en', 'y yes')).toBe('no');
  });
});
