/**
 * Tab lists as the ARIA tabs pattern has them: one tab in the Tab order (the selected one), Left/Right/Home/End
 * move between tabs and select them, each tab names the panel it controls.
 */

/** Marks `tab` selected in its list (and the others not), showing its panel and hiding theirs. */
export function selectTab(list: HTMLElement, tab: HTMLElement): void {
  for (const t of list.querySelectorAll<HTMLElement>('[role="tab"]')) {
    const on = t === tab;
    t.setAttribute('aria-selected', String(on));
    t.tabIndex = on ? 0 : -1;
    t.classList.toggle('on', on);
    const panel = t.getAttribute('aria-controls');
    const el = panel ? document.getElementById(panel) : null;
    if (el && list.dataset.panels !== 'shared') el.hidden = !on;
  }
}

/** Clicks and arrow keys on the tabs of `list` call `activate` with the chosen tab (after it is marked selected). */
export function wireTabList(list: HTMLElement, activate: (tab: HTMLElement) => void): void {
  const tabs = () => [...list.querySelectorAll<HTMLElement>('[role="tab"]')];
  const choose = (tab: HTMLElement) => {
    selectTab(list, tab);
    activate(tab);
  };
  list.addEventListener('click', (e) => {
    const tab = (e.target as HTMLElement).closest<HTMLElement>('[role="tab"]');
    if (tab && list.contains(tab)) choose(tab);
  });
  list.addEventListener('keydown', (e) => {
    const all = tabs();
    const at = all.indexOf(document.activeElement as HTMLElement);
    if (at < 0) return;
    const to = e.key === 'ArrowRight' ? (at + 1) % all.length : e.key === 'ArrowLeft' ? (at - 1 + all.length) % all.length : e.key === 'Home' ? 0 : e.key === 'End' ? all.length - 1 : -1;
    if (to < 0) return;
    e.preventDefault();
    all[to]!.focus();
    choose(all[to]!);
  });
}
