import { loadAsset, loadPageStyle, type PageAsset } from '../page/page-assets.js';

/**
 * The console's files: the /slowdns page's stylesheet (colours, dark mode, buttons, cards), served again
 * under /admin so that a console on its own listener (CONSOLE_PORT) has it too, the console's own
 * stylesheet and its one small script.
 */
export function loadConsoleAssets(): { pageStyle: PageAsset; style: PageAsset; script: PageAsset } {
  return {
    pageStyle: loadPageStyle('/admin/page.css'),
    // console.css (the frame, forms, the overview's tiles and chart) then console-lists.css (tables, badges,
    // facts, actions, and how they fold on a phone).
    style: loadAsset(
      [new URL('console.css', import.meta.url), new URL('console-lists.css', import.meta.url)],
      '/admin/console.css',
      'text/css; charset=utf-8',
    ),
    script: loadAsset(new URL('console.js', import.meta.url), '/admin/console.js', 'text/javascript; charset=utf-8'),
  };
}
