// Entry point: loads the words and the rules, then picks the page from the address.
//   /?game=ID[&seat=S#token=T]   the game page (a seat with its invite token, else watching)
//   /#/rules                     the rules, for players
//   /#/calc                      the score calculator
//   /#/learn[?step=ID|end]       the tutorial: learn to play in about five minutes
//   /#/replay[?game=ID]          the replay viewer (a finished game, or an uploaded record)
//   /#/player/HANDLE             a player's profile: ratings, their history, results
//   /#/leaderboard[?group=3-5p]  the settled ratings of a group, best first
//   /#/lobby                     the open games, live, filtered; a free seat in one click
//   /#/play                      play now: the quick-match queue (docs/server.md)
//   /#/games                     my games (signed in): my turn first, then running, finished
//   /#/account                   sign in, sign up, passkeys, my data (docs/accounts.md)
//   /                            home: new game, play against a bot

import { ensureDefs } from "./grounds.js";
import { applyMarkup, currentLang, loadLang, setLang, t } from "./i18n.js";
import { loadRules } from "./rules.js";
import { useRules } from "./tiles.js";
import { account, heldSeats, holdSeat, keepToken, onAccount, seatToken, tabSeats } from "./session.js";

const main = document.getElementById("main");
let cleanup = null;

function setupColorBlind() {
  const box = document.getElementById("cb-mode");
  const on = localStorage.getItem("kerala.cb") === "1";
  box.checked = on;
  document.body.classList.toggle("cb", on);
  box.addEventListener("change", () => {
    document.body.classList.toggle("cb", box.checked);
    localStorage.setItem("kerala.cb", box.checked ? "1" : "0");
  });
}

// The header names who is signed in (or offers to sign in) on every page.
function setupAccountLink() {
  const link = document.getElementById("account-link");
  const show = (me) => {
    link.textContent = me.signed_in ? me.account.display_name : t("nav.signIn");
    link.title = me.signed_in ? `@${me.account.handle}` : "";
  };
  show({ signed_in: false });
  onAccount(show);
  account();
}

function setupLanguage() {
  const sel = document.getElementById("lang");
  sel.value = currentLang();
  sel.addEventListener("change", async () => {
    await setLang(sel.value);
    applyMarkup();
    routed = null;
    account(true); // the header's words
    route(); // draw the page again in the new language
  });
}

function gameIdFromPath() {
  const params = new URLSearchParams(location.search);
  if (params.get("game")) return params.get("game");
  const m = location.pathname.match(/^\/games\/([^/]+)\/?$/);
  return m ? decodeURIComponent(m[1]) : null;
}

// Seat tokens stay out of addresses (docs/security.md): an invite link carries its seat's token
// in the fragment (`#token=T`, never sent to a server; old links: `?token=T`). The page moves it
// at once into this tab's sessionStorage (session.js), keyed by game and seat, and out of the
// address bar and the history, so no later request, Referer, bookmark or shared screen carries
// it. A reload in the same tab keeps the seat; another tab needs the invite link again, or an
// account that holds the seat (docs/accounts.md).

/** Move an invite link's token from the address into the tab's storage; true if there was one. */
function adoptToken() {
  const params = new URLSearchParams(location.search);
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ""));
  const token = fragment.get("token") || params.get("token");
  if (!token) return false;
  const game = gameIdFromPath();
  if (game && params.has("seat")) keepToken(game, params.get("seat"), token);
  params.delete("token");
  const query = params.toString();
  const hash = fragment.has("token") ? "" : location.hash;
  history.replaceState(history.state, "", `${location.pathname}${query ? `?${query}` : ""}${hash}`);
  return true;
}

let routed = null;
// Each call of route() takes the next number; one that a newer call overtook while it waited
// (a page's module still loading) stops instead of mounting its page over the newer one.
let routing = 0;

async function route() {
  // An invite link opened from this very page changes only the fragment: draw the seat anew.
  if (adoptToken()) routed = null;
  // hashchange and popstate both fire for one navigation: route once per address.
  if (routed === location.href) return;
  routed = location.href;
  const mine = ++routing;
  if (cleanup) {
    cleanup();
    cleanup = null;
  }
  main.replaceChildren();
  const params = new URLSearchParams(location.search);
  const hash = location.hash.replace(/^#\/?/, "");
  const [page, query] = hash.split("?");
  const hashParams = new URLSearchParams(query || "");
  let nav = "home";
  const gameId = gameIdFromPath();
  if (gameId && !page) {
    nav = "game";
    let seat = params.has("seat") ? Number(params.get("seat")) : null;
    let token = seat !== null ? seatToken(gameId, seat) : null;
    if (token) {
      await holdSeat(gameId, seat, token); // signed in: the seat is the account's from now on
    } else {
      // No token in the address: a seat of this tab (a guest who came back from the game
      // list), else a seat the account holds (any device), opens as that seat.
      const inTab = seat === null ? tabSeats().filter((s) => s.game === gameId) : [];
      const held = inTab.length ? inTab : await heldSeats(gameId);
      const mine = held.find((s) => s.seat === seat) || held[0];
      if (mine) {
        seat = mine.seat;
        token = mine.token;
        keepToken(gameId, seat, token);
        params.set("seat", String(seat));
        history.replaceState(history.state, "", `${location.pathname}?${params}${location.hash}`);
        routed = location.href;
      }
    }
    if (routed !== location.href || mine !== routing) return; // the address changed while asking
    const { mountGame } = await import("./game.js");
    if (mine !== routing) return;
    cleanup = mountGame(main, { id: gameId, token, seat });
  } else if (page === "account") {
    nav = "account";
    const { mountAccount } = await import("./account.js");
    if (mine !== routing) return;
    cleanup = mountAccount(main);
  } else if (page === "games") {
    nav = "games";
    const { mountMyGames } = await import("./mygames.js");
    if (mine !== routing) return;
    cleanup = mountMyGames(main);
  } else if (page && page.startsWith("player/")) {
    nav = "games";
    const { mountProfile } = await import("./players.js");
    if (mine !== routing) return;
    cleanup = mountProfile(main, decodeURIComponent(page.slice("player/".length)));
  } else if (page === "leaderboard") {
    nav = "games";
    const { mountLeaderboard } = await import("./players.js");
    if (mine !== routing) return;
    cleanup = mountLeaderboard(main, hashParams.get("group"));
  } else if (page === "lobby") {
    const { mountLobby } = await import("./lobby.js");
    if (mine !== routing) return;
    cleanup = mountLobby(main);
  } else if (page === "play") {
    nav = "home";
    const { mountQuickMatch } = await import("./quickmatch.js");
    if (mine !== routing) return;
    cleanup = mountQuickMatch(main);
  } else if (page === "learn") {
    nav = "learn";
    const { mountTutorial } = await import("./tutorial.js");
    if (mine !== routing) return;
    cleanup = mountTutorial(main, { step: hashParams.get("step") });
  } else if (page === "calc") {
    nav = "calc";
    const { mountCalc } = await import("./calc.js");
    if (mine !== routing) return;
    cleanup = mountCalc(main);
  } else if (page === "rules") {
    nav = "rules";
    const { mountRules } = await import("./rulespage.js");
    if (mine !== routing) return;
    cleanup = mountRules(main);
  } else if (page === "replay") {
    nav = "replay";
    const { mountReplay } = await import("./replay.js");
    if (mine !== routing) return;
    cleanup = mountReplay(main, { game: hashParams.get("game") });
  } else {
    const { mountHome } = await import("./home.js");
    if (mine !== routing) return;
    cleanup = mountHome(main);
  }
  for (const a of document.querySelectorAll("[data-nav]")) {
    if (a.dataset.nav === nav) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  document.body.dataset.page = nav;
}

// Nav links from a game page (query string set) must drop the query: rewrite them.
document.addEventListener("click", (ev) => {
  const a = ev.target.closest && ev.target.closest("a[href^='#']");
  if (!a || !location.search) return;
  ev.preventDefault();
  history.pushState(null, "", "/" + a.getAttribute("href"));
  route();
});

async function start() {
  adoptToken(); // first of all, before anything can be loaded with the token in the address
  const [, r] = await Promise.all([loadLang(), loadRules()]);
  useRules(r);
  applyMarkup();
  ensureDefs();
  setupColorBlind();
  setupLanguage();
  setupAccountLink();
  window.addEventListener("hashchange", route);
  window.addEventListener("popstate", route);
  route();
}

start().catch((e) => {
  main.textContent = `Kerala could not start: ${e.message}`;
});
