// The lobby on the home page: open games and their free seats (GET /api/games?status=open).
// Taking a seat asks for a name, joins (POST /api/games/{id}/seats/{seat}/join) and opens the
// seat's page with its new token. Refreshed every few seconds while the home page is shown;
// `data-loaded` on the section says the list has been read once (an empty lobby shows nothing).

import { currentLang } from "./i18n.js";
import { colorWord } from "./tiles.js";
import { api, h, toast } from "./ui.js";
import { known } from "./session.js";

const WORDS = {
  en: {
    title: "Open games",
    hint: "Take a free seat: the game starts when every seat is taken.",
    name: "Your name",
    take: "Take the {color} seat",
    needName: "Write your name first.",
    players: "With {names}",
    nobody: "Nobody has sat down yet",
    rated: "Rated",
    casual: "Casual",
  },
  de: {
    title: "Offene Partien",
    hint: "Nimm einen freien Platz: Die Partie beginnt, wenn alle Plätze besetzt sind.",
    name: "Dein Name",
    take: "Platz {color} nehmen",
    needName: "Schreib zuerst deinen Namen.",
    players: "Mit {names}",
    nobody: "Noch niemand sitzt",
    rated: "Gewertet",
    casual: "Ungewertet",
  },
};

const w = (key, params = {}) =>
  ((WORDS[currentLang()] || WORDS.en)[key] || WORDS.en[key]).replace(/\{(\w+)\}/g, (m, k) => params[k] ?? m);

/** Show the open games under `root`; returns the function that stops refreshing them. */
export function mountLobby(root) {
  const box = h("section", { class: "lobby", id: "lobby", "aria-labelledby": "lobby-title" });
  root.append(box);
  const name = h("input", {
    id: "lobby-name",
    type: "text",
    maxlength: 40,
    autocomplete: "nickname",
    value: known().signed_in ? known().account.display_name : localStorage.getItem("kerala.name") || "",
  });
  let stopped = false;

  async function take(gameId, seat) {
    const me = name.value.trim();
    if (!me) {
      name.focus();
      toast(w("needName"));
      return;
    }
    try {
      const r = await api("POST", `/api/games/${encodeURIComponent(gameId)}/seats/${seat}/join`, { name: me });
      localStorage.setItem("kerala.name", me);
      location.assign(r.path);
    } catch (e) {
      toast(e.message);
      load();
    }
  }

  function render(games) {
    if (!games.length) {
      box.replaceChildren(); // nothing open: no section
      return;
    }
    const items = games.map((g) => {
      const seated = g.players.filter((p) => p.kind !== "open").map((p) => p.name);
      return h(
        "li",
        { class: "lobby-game", "data-game": g.id },
        h("span", {}, seated.length ? w("players", { names: seated.join(", ") }) : w("nobody")),
        " ",
        h("span", { class: "lobby-rated muted", "data-rated": String(Boolean(g.rated)) }, `(${w(g.rated ? "rated" : "casual")})`),
        " ",
        g.players
          .filter((p) => p.kind === "open")
          .map((p) =>
            h(
              "button",
              { type: "button", class: "take-seat", "data-seat": p.seat, onclick: () => take(g.id, p.seat) },
              w("take", { color: colorWord(p.color) }),
            ),
          ),
      );
    });
    box.replaceChildren(
      h("h2", { id: "lobby-title" }, w("title")),
      h("p", {}, w("hint")),
      h("label", { for: "lobby-name" }, w("name"), " "),
      name,
      h("ul", { class: "lobby-games" }, items),
    );
  }

  async function load() {
    try {
      const list = await api("GET", "/api/games?status=open&limit=20");
      if (!stopped) {
        render(list.games);
        box.dataset.loaded = "true";
      }
    } catch {
      // The home page works without the lobby; the next refresh tries again.
    }
  }

  load();
  const timer = setInterval(load, 5000);
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
