// The rules, written for players, in their language. The numbers (tiles taken out, points)
// come from the server's rules; the pictures are the game's own tiles and elephants.

import { h } from "./ui.js";
import { t } from "./i18n.js";
import { rules } from "./rules.js";
import { tileSvg } from "./grounds.js";
import { tileTip } from "./tiles.js";

export function mountRules(root) {
  const r = rules();
  const p = r.points;
  const rc = r.removal_count;
  const para = (key, params = {}) => h("p", {}, t(key, params));
  const tiles = ["green:e1", "green:e2", "green:e3", "blue:arch-red", "red:move-elephant", "purple:move-tile"];
  root.append(
    h(
      "article",
      { class: "panel rules-page", id: "rules" },
      h("h1", {}, t("rules.title")),
      para("rules.goal"),
      h("h2", {}, t("rules.setupTitle")),
      para("rules.setup"),
      para("rules.removed", { two: rc["2"], three: rc["3"], four: rc["4"], five: rc["5"] }),
      h("h2", {}, t("rules.roundTitle")),
      para("rules.round"),
      para("rules.place"),
      para("rules.pass", { n: r.max_passes }),
      h("h2", {}, t("rules.tilesTitle")),
      h(
        "ul",
        { class: "tile-list" },
        tiles.map((name) => h("li", {}, tileSvg(name, 48), h("span", {}, tileTip(name)))),
      ),
      para("rules.special"),
      h("h2", {}, t("rules.scoreTitle")),
      h(
        "ol",
        {},
        h("li", {}, t("rules.surplus", { n: -p.removed_tile })),
        h("li", {}, t("rules.missing", { n: -p.missing_color })),
        h("li", {}, t("rules.standing", { n: p.standing_elephant })),
        h("li", {}, t("rules.arches", { n: p.arch })),
        h("li", {}, t("rules.symbols", { n: p.symbol })),
      ),
      para("rules.win"),
      h("h2", {}, t("rules.tableTitle")),
      para("rules.table"),
    ),
  );
  return () => {};
}
