// The list page every section of the console opens on: a heading, a toolbar, a body that a load fills and that
// shows the load's error as an alert.

import {h, mount, showError} from './dom.js';

/**
 * Renders a list page into the container and starts its first load. title: the h1. bodyId: the id of the body div
 * (or body: the element itself, when the page's other parts fill it too). toolbar: children of a div.toolbar under
 * the title. layout(body, toolbar): what stands under the title, when it is more than the toolbar and the body.
 * load(body): fetches and returns what the body shows (undefined: the load filled the body itself, or has nothing
 * newer to show); what it throws is shown in the body as an alert.
 * Returns the page handle ({ready}) with reload(), for the page's own refreshes.
 */
export function listPage(container, {title, bodyId, body = h('div', {id: bodyId}), toolbar, layout, load}) {
  const bar = toolbar ? h('div', {class: 'toolbar'}, toolbar) : null;
  mount(container, h('h1', {}, title), layout ? layout(body, bar) : [bar, body]);
  async function reload() {
    try {
      const content = await load(body);
      if (content !== undefined) mount(body, content);
    } catch (e) {
      showError(body, e);
    }
  }
  return {ready: reload(), reload};
}
