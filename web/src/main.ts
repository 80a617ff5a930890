/**
 * Entry point of the dashboard page: styles, the live feed, the app.
 *
 * Invariant: no inline script or style anywhere (the server's CSP forbids them).
 */
import { render } from 'preact';
import { html } from 'htm/preact';
import './styles.css';
import { LiveFeed } from './live.js';
import { App } from './components/app.js';

const root = document.getElementById('app');
if (root) render(html`<${App} feed=${new LiveFeed()} />`, root);
