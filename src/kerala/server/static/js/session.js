// The account of this browser and the seat tokens of this tab (docs/accounts.md).
//
// Seat tokens stay out of addresses (docs/security.md): an invite link's token is moved into
// this tab's sessionStorage, keyed by game and seat. A signed-in person also holds each seat
// they open by account (POST /api/account/seats), so the server can hand its token to their
// other browsers; after signing up or in, the seats of this tab are claimed the same way.
// Every change a session makes sends its CSRF token (X-CSRF-Token) from GET /api/account.

import { api } from "./ui.js";

const memoryTokens = new Map(); // where sessionStorage is refused (some privacy modes)
const PREFIX = "kerala.token.";

function tokenKey(game, seat) {
  return `${PREFIX}${game}.${seat}`;
}

export function keepToken(game, seat, token) {
  try {
    sessionStorage.setItem(tokenKey(game, seat), token);
  } catch {
    memoryTokens.set(tokenKey(game, seat), token);
  }
}

export function seatToken(game, seat) {
  try {
    const token = sessionStorage.getItem(tokenKey(game, seat));
    if (token) return token;
  } catch {
    /* storage refused: the memory copy below */
  }
  return memoryTokens.get(tokenKey(game, seat)) || null;
}

/** This tab's seats: [{game, seat, token}]. */
export function tabSeats() {
  const out = new Map();
  const add = (key, token) => {
    if (!key.startsWith(PREFIX) || !token) return;
    const rest = key.slice(PREFIX.length);
    const dot = rest.lastIndexOf(".");
    out.set(key, { game: rest.slice(0, dot), seat: Number(rest.slice(dot + 1)), token });
  };
  try {
    for (let i = 0; i < sessionStorage.length; i++) {
      const key = sessionStorage.key(i);
      add(key, sessionStorage.getItem(key));
    }
  } catch {
    /* storage refused */
  }
  for (const [key, token] of memoryTokens) add(key, token);
  return [...out.values()];
}

let me = { signed_in: false, account: null, csrf: null };
let asked = null;
const listeners = new Set();

/** Who is signed in (asked once per page load; `fresh` asks again). */
export async function account(fresh = false) {
  if (!asked || fresh) {
    asked = api("GET", "/api/account")
      .then((r) => {
        me = r;
        listeners.forEach((f) => f(me));
        return me;
      })
      .catch(() => me);
  }
  return asked;
}

/** The last known answer of GET /api/account, without asking. */
export function known() {
  return me;
}

/** Be told whenever the account changes (sign-in, sign-out). */
export function onAccount(f) {
  listeners.add(f);
  return () => listeners.delete(f);
}

/** A sign-in or sign-out answered: remember it and tell the page. */
export function signedIn(body) {
  me = body && body.signed_in ? body : { signed_in: false, account: null, csrf: null };
  asked = Promise.resolve(me);
  listeners.forEach((f) => f(me));
}

/** The headers of a change the session makes. */
export function changeHeaders() {
  return me.csrf ? { "X-CSRF-Token": me.csrf } : {};
}

/** Hold a seat by account (signed in only); true if this account holds it now. */
export async function holdSeat(game, seat, token) {
  if (!(await account()).signed_in) return false;
  try {
    await api("POST", "/api/account/seats", { game_id: game, seat: Number(seat), token }, changeHeaders());
    return true;
  } catch {
    return false; // another account holds it, or the game is gone: the token still plays
  }
}

/** Claim every seat of this tab for the signed-in account; how many it now holds. */
export async function claimTabSeats() {
  let n = 0;
  for (const s of tabSeats()) if (await holdSeat(s.game, s.seat, s.token)) n++;
  return n;
}

/** The seats the account holds in a game, with their tokens: [{seat, token}]. */
export async function heldSeats(game) {
  if (!(await account()).signed_in) return [];
  try {
    const r = await api("GET", `/api/account/games/${encodeURIComponent(game)}/seats`);
    return r.seats;
  } catch {
    return [];
  }
}
