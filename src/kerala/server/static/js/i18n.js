// The words of the interface: one catalogue per language (static/i18n/<lang>.json), chosen from
// the browser's language, switchable and remembered. Nothing shown to players is written in
// the code or the markup: everything goes through t(key, params).

export const LANGS = ["en", "de"];
let lang = "en";
let words = {};
let fallback = {};

/** The language to start in: the saved choice, else the browser's first supported language. */
export function preferredLang() {
  const saved = localStorage.getItem("kerala.lang");
  if (LANGS.includes(saved)) return saved;
  for (const l of navigator.languages || [navigator.language || "en"]) {
    const base = String(l).slice(0, 2).toLowerCase();
    if (LANGS.includes(base)) return base;
  }
  return "en";
}

async function fetchCatalogue(l) {
  const res = await fetch(`/static/i18n/${l}.json`);
  if (!res.ok) throw new Error(`no word list for ${l}`);
  return res.json();
}

/** Load a language's catalogue (and English underneath, so a gap never shows a key). */
export async function loadLang(l = preferredLang()) {
  if (!LANGS.includes(l)) l = "en";
  const [en, cur] = await Promise.all([fetchCatalogue("en"), l === "en" ? null : fetchCatalogue(l)]);
  fallback = en;
  words = cur || en;
  lang = l;
  document.documentElement.lang = l;
  return l;
}

export function currentLang() {
  return lang;
}

/** Switch language: remembered for the next visit. */
export async function setLang(l) {
  localStorage.setItem("kerala.lang", l);
  await loadLang(l);
}

/** The words for `key`, with {name} placeholders filled from `params`. */
export function t(key, params = {}) {
  const s = words[key] ?? fallback[key];
  if (s === undefined) return key;
  return s.replace(/\{(\w+)\}/g, (m, k) => (params[k] !== undefined ? String(params[k]) : m));
}

/** Fill the markup's words: data-i18n (text), data-i18n-title, data-i18n-aria-label. */
export function applyMarkup(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-title]")) el.title = t(el.dataset.i18nTitle);
  for (const el of root.querySelectorAll("[data-i18n-aria-label]"))
    el.setAttribute("aria-label", t(el.dataset.i18nAriaLabel));
  document.title = t("app.title");
}
