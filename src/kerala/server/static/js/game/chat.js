// The game's chat (docs/web.md, "Chat"): a dialog opened from the table's status line (a
// button with the count of unread messages), mounted once so that typing survives the table's
// redraws and the table keeps the whole screen. A seat writes to and reads the players' chat; a watcher the
// watchers' chat (the players read it too once the game is over). Text is inserted as text.
// One-click phrases are sent as keys and shown in each reader's language. A person can be
// muted: their messages are hidden in this browser for this game.

import { h, toast } from "../ui.js";
import { t } from "../i18n.js";

const PHRASES = ["hello", "gg", "thanks", "rematch", "bye"];

export function mountChat(root, { id, seat, send, onUnread }) {
  let unread = 0;
  const muteKey = `kerala.mute.${id}`;
  const muted = new Set(JSON.parse(localStorage.getItem(muteKey) || "[]"));
  const seen = new Map(); // id -> message, in order
  const list = h("ol", { class: "chat-list", id: "chat-list", "aria-live": "polite" });
  const input = h("input", { type: "text", id: "chat-input", maxlength: 200, "aria-label": t("chat.write"), placeholder: t("chat.write") });
  const who = (m) => (m.seat !== null && m.seat !== undefined ? `seat:${m.seat}` : `name:${m.name}`);

  const draw = () => {
    list.replaceChildren(
      ...[...seen.values()].map((m) => {
        const key = who(m);
        const off = muted.has(key);
        const mute = h(
          "button",
          {
            type: "button",
            class: "small chat-mute",
            "data-who": key,
            "aria-pressed": String(off),
            title: t(off ? "chat.unmuteTip" : "chat.muteTip", { name: m.name }),
            onclick: () => {
              if (muted.has(key)) muted.delete(key);
              else muted.add(key);
              localStorage.setItem(muteKey, JSON.stringify([...muted]));
              draw();
            },
          },
          t(off ? "chat.unmute" : "chat.mute"),
        );
        const body = off ? h("span", { class: "muted" }, t("chat.hidden")) : h("span", { class: "chat-text" }, m.phrase ? t(`chat.phrase.${m.phrase}`) : m.text);
        return h("li", { class: `chat-msg ${m.channel}`, "data-id": m.id, "data-channel": m.channel }, h("strong", { class: "chat-name" }, m.name), " ", body, " ", mute);
      }),
    );
    list.scrollTop = list.scrollHeight;
  };

  const post = (body) => {
    if (!send(body)) toast(t("chat.offline"));
  };
  const submit = (ev) => {
    ev.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    post({ text });
    input.value = "";
  };

  const panel = h(
    "dialog",
    { class: "chat chat-dialog", id: "chat", "aria-labelledby": "chat-title" },
    h(
      "div",
      { class: "row chat-head" },
      h("h2", { id: "chat-title" }, t(seat === null || seat === undefined ? "chat.watchers" : "chat.players")),
      h("button", { type: "button", class: "small", id: "chat-close", onclick: () => panel.close() }, t("chat.close")),
    ),
    list,
    h("div", { class: "row chat-phrases" }, PHRASES.map((p) => h("button", { type: "button", class: "small", "data-phrase": p, onclick: () => post({ phrase: p }) }, t(`chat.phrase.${p}`)))),
    h("form", { class: "row", onsubmit: submit }, input, h("button", { type: "submit", id: "chat-send" }, t("chat.send"))),
  );
  root.append(panel);
  draw();

  return {
    /** A `chat` or `chat_history` message from the socket. */
    receive(m) {
      let fresh = 0;
      for (const x of m.type === "chat_history" ? m.messages : [m]) {
        if (!seen.has(x.id) && !muted.has(who(x))) fresh++;
        seen.set(x.id, x);
      }
      draw();
      if (!panel.open && fresh && m.type === "chat") {
        unread += fresh;
        if (onUnread) onUnread(unread);
      }
    },
    open() {
      unread = 0;
      if (onUnread) onUnread(0);
      panel.showModal();
      list.scrollTop = list.scrollHeight;
      input.focus();
    },
    unread: () => unread,
  };
}
