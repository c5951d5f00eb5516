// Each element of a selector that a person cannot read whole, with why (clipping.py).
/* global document, getComputedStyle */
(sel) => {
  const bad = [];
  const vw = document.documentElement.clientWidth;
  const inside = (r, b) => r.left >= b.left - 1 && r.right <= b.right + 1 && r.top >= b.top - 1 && r.bottom <= b.bottom + 1;
  for (const el of document.querySelectorAll(sel)) {
    if (el.closest('.visually-hidden, [hidden], dialog:not([open])')) continue;
    const cs = getComputedStyle(el);
    if (cs.display === 'none' || cs.visibility === 'hidden') continue;
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) continue;
    const name = `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}.${String(el.className).split(' ')[0]} "${el.textContent.trim().slice(0, 40)}"`;
    if (cs.display !== 'inline' && (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1))
      bad.push(`${name}: its text overflows its box (${el.scrollWidth}x${el.scrollHeight} in ${el.clientWidth}x${el.clientHeight})`);
    if (r.left < -1 || r.right > vw + 1) bad.push(`${name}: off the screen sideways`);
    for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      const ac = getComputedStyle(a);
      if (ac.overflowX === 'visible' && ac.overflowY === 'visible') continue;
      const ar = a.getBoundingClientRect();
      const box = { left: ar.left + a.clientLeft, top: ar.top + a.clientTop };
      box.right = box.left + a.clientWidth;
      box.bottom = box.top + a.clientHeight;
      if (!inside(r, box)) {
        bad.push(`${name}: cut by ${a.tagName.toLowerCase()}${a.id ? '#' + a.id : ''}.${String(a.className).split(' ')[0]}`);
        break;
      }
    }
  }
  return bad;
}
