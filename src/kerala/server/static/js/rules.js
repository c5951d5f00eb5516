// The rules' numbers, from the server (GET /api/rules): the tile set, the tile kinds, the setup
// counts and the points. The browser keeps no copy of them.

let data = null;

export async function loadRules() {
  const res = await fetch("/api/rules", { headers: { Accept: "application/json" } });
  if (!res.ok) throw new Error(`GET /api/rules: HTTP ${res.status}`);
  data = await res.json();
  data.byName = Object.fromEntries(data.tile_types.map((t) => [t.name, t]));
  return data;
}

/** The loaded rules (loadRules() must have finished: app.js waits for it before any page). */
export function rules() {
  if (!data) throw new Error("the rules are not loaded yet");
  return data;
}
