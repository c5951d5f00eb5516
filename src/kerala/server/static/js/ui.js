// Small DOM helpers shared by the pages: element builder, messages, the HTTP client.

import { t, currentLang } from "./i18n.js";

/** Create an HTML element: h("button", {class: "x", onclick: f}, "text"). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    // Through the CSSOM: the Content-Security-Policy refuses style attributes (docs/security.md).
    else if (k === "style") el.style.cssText = String(v);
    else if (k in el && typeof v !== "string") el[k] = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** Show a message at the bottom of the screen; errors stay until dismissed or replaced. */
export function toast(message, kind = "error", ms = kind === "error" ? 12000 : 4000) {
  const box = document.getElementById("toasts");
  if (!box) return;
  const el = h(
    "div",
    { class: `toast ${kind}`, "data-kind": kind },
    h("span", { class: "msg" }, message),
    h("button", { type: "button", "aria-label": t("toast.dismiss"), onclick: () => el.remove() }, "✕"),
  );
  box.append(el);
  while (box.children.length > 3) box.firstChild.remove();
  if (ms) setTimeout(() => el.remove(), ms);
}

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** Turn any error body into one readable sentence. */
export function readableError(status, body) {
  let detail = body && (body.detail ?? body.message ?? body.error);
  if (Array.isArray(detail)) {
    // FastAPI validation errors: [{loc: [...], msg}]
    detail = detail
      .map((d) => {
        const loc = (d.loc || []).filter((p) => p !== "body").join(".");
        return loc ? `${loc}: ${d.msg}` : d.msg;
      })
      .join("; ");
  } else if (detail && typeof detail === "object") {
    detail = detail.message || JSON.stringify(detail);
  }
  const prefix = t(
    {
      400: "http.refused",
      401: "http.notAllowed",
      403: "http.notAllowed",
      404: "http.notFound",
      409: "http.outOfDate",
      413: "http.tooLarge",
      422: "http.refused",
      429: "http.tooMany",
    }[status] || (status >= 500 ? "http.server" : "http.refused"),
  );
  // The server's message is English and names the field or rule at fault: English pages show
  // it; other languages show the catalogue's words for the refusal's code (docs/api.md lists
  // the codes), so that a German page never shows English.
  const code = body && typeof body.code === "string" ? body.code : null;
  const key = `refusal.${code}`;
  if (currentLang() !== "en") {
    const words = code && t(key) !== key ? t(key) : t("refusal.error");
    return `${prefix}: ${words}`;
  }
  return detail ? `${prefix}: ${detail}` : `${prefix} (HTTP ${status})`;
}

/** JSON over HTTP; throws ApiError with a readable message on any refusal or network failure. */
export async function api(method, path, body, headers = {}) {
  let res;
  try {
    res = await fetch(path, {
      method,
      headers: { Accept: "application/json", ...(body !== undefined ? { "Content-Type": "application/json" } : {}), ...headers },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
  } catch {
    throw new ApiError(0, t("http.unreachable"));
  }
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { detail: text.slice(0, 300) };
  }
  if (!res.ok) throw new ApiError(res.status, readableError(res.status, data));
  return data;
}

/** Copy text, falling back to selecting it when the clipboard is not available. */
export async function copyText(text, input) {
  try {
    await navigator.clipboard.writeText(text);
    toast(t("toast.copied"), "info", 2000);
  } catch {
    if (input) {
      input.focus();
      input.select();
    }
    toast(t("toast.copyByHand"), "info", 3000);
  }
}

/** Offer a JSON document as a file download. */
export function download(filename, doc) {
  const blob = new Blob([JSON.stringify(doc, null, 2) + "\n"], { type: "application/json" });
  const a = h("a", { href: URL.createObjectURL(blob), download: filename });
  document.body.append(a);
  a.click();
  setTimeout(() => {
    URL.revokeObjectURL(a.href);
    a.remove();
  }, 1000);
}
