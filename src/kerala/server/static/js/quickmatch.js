// Play now (#/play, docs/server.md "Quick match"): choose a player count, a time control and
// whether bots may fill in after a wait, press Play now, and the server pairs you with people
// who chose the same; the page asks how it goes every second and opens the game as your seat
// when it is found. Leaving the page leaves the queue.

import { h, api, toast } from "./ui.js";
import { t } from "./i18n.js";
import { keepToken, known } from "./session.js";
import { myName } from "./home.js";

const CONTROLS = ["realtime", "fast", "none", "day", "3days"];
const BOTS_AFTER = [null, 30, 60, 120];

export function mountQuickMatch(root) {
  const st = { players: 2, control: "realtime", botsAfter: 60, rated: false, ticket: null, status: null, busy: false };
  const page = h("div", { class: "quick-match" });
  root.append(page);
  let timer = null;
  let stopped = false;

  const leave = async () => {
    const tk = st.ticket;
    st.ticket = null;
    st.status = null;
    clearTimeout(timer);
    if (tk) {
      try {
        await api("DELETE", `/api/quickmatch/${encodeURIComponent(tk.ticket)}`, undefined, { Authorization: `Bearer ${tk.secret}` });
      } catch {
        // already served or dropped: nothing to leave
      }
    }
  };

  const poll = async () => {
    if (stopped || !st.ticket) return;
    const tk = st.ticket;
    try {
      const s = await api("GET", `/api/quickmatch/${encodeURIComponent(tk.ticket)}`, undefined, { Authorization: `Bearer ${tk.secret}` });
      if (stopped || st.ticket !== tk) return;
      st.status = s;
      if (s.status === "matched") {
        st.ticket = null;
        keepToken(s.game, s.seat, s.token);
        location.assign(`/?game=${encodeURIComponent(s.game)}&seat=${s.seat}`);
        return;
      }
    } catch (e) {
      st.ticket = null;
      toast(e.message);
    }
    render();
    if (st.ticket) timer = setTimeout(poll, 1000);
  };

  const join = async () => {
    if (st.busy || st.ticket) return;
    st.busy = true;
    render();
    try {
      st.ticket = await api("POST", "/api/quickmatch", {
        players: st.players,
        control: st.control,
        name: myName().slice(0, 40),
        bots_after: st.botsAfter,
        rated: st.rated && known().signed_in,
      });
      st.status = { status: "waiting", waited: 0, alike: 1 };
      timer = setTimeout(poll, 300);
    } catch (e) {
      toast(e.message);
    }
    st.busy = false;
    render();
  };

  const choice = (name, values, current, label, set) =>
    h(
      "fieldset",
      { class: "row", id: `qm-${name}` },
      h("legend", {}, label),
      values.map((v) =>
        h(
          "label",
          { class: "choice" },
          h("input", {
            type: "radio",
            name: `qm-${name}`,
            value: String(v),
            checked: v === current,
            disabled: Boolean(st.ticket),
            onchange: () => {
              set(v);
              render();
            },
          }),
          " ",
          t(`qm.${name}.${v}`),
        ),
      ),
    );

  function render() {
    const waiting = st.ticket && st.status;
    page.replaceChildren(
      h(
        "section",
        { class: "panel" },
        h("h1", {}, t("qm.title")),
        h("p", { class: "muted" }, t("qm.intro")),
        choice("players", [2, 3, 4, 5], st.players, t("qm.playersLabel"), (v) => (st.players = v)),
        choice("control", CONTROLS, st.control, t("qm.controlLabel"), (v) => (st.control = v)),
        choice("bots", BOTS_AFTER, st.botsAfter, t("qm.botsLabel"), (v) => (st.botsAfter = v)),
        // Rated play is for people signed in (paired by their rating); guests play casual.
        known().signed_in
          ? h("label", { id: "qm-rated-label" }, h("input", { type: "checkbox", id: "qm-rated", checked: st.rated, disabled: Boolean(st.ticket), onchange: (e) => (st.rated = e.target.checked) }), " ", t("qm.rated"))
          : h("p", { class: "muted", id: "qm-casual" }, t("qm.casualOnly")),
        waiting
          ? h(
              "div",
              { class: "row" },
              h("p", { id: "qm-status", "aria-live": "polite" }, t("qm.waiting", { s: Math.round(st.status.waited), n: st.status.alike ?? 1 })),
              h("button", { type: "button", id: "qm-leave", onclick: async () => (await leave(), render()) }, t("qm.leave")),
            )
          : h("button", { type: "button", class: "primary big", id: "qm-join", disabled: st.busy, onclick: join }, t("qm.join")),
      ),
    );
  }

  render();
  return () => {
    stopped = true;
    leave();
  };
}
