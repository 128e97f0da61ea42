import { startPageServer } from '../helpers/pages.js';
import { startWebhookReceiver } from '../helpers/webhook-receiver.js';
import { describeAuthSuite } from './auth-suite.js';

// Every protected route, one line each.
const card = { template: 'blog', title: 'Auth suite' };

describeAuthSuite({
  name: 'POST /render/template',
  method: 'POST',
  path: '/render/template',
  setup: async () => ({ payload: card }),
});

describeAuthSuite({
  name: 'GET /render/template',
  method: 'GET',
  path: '/render/template',
  setup: async () => ({ query: card }),
});

describeAuthSuite({
  name: 'GET /render/url',
  method: 'GET',
  path: '/render/url',
  tags: ['chromium'],
  setup: async () => {
    const pages = await startPageServer();
    return {
      query: { url: `${pages.url}/split` },
      overrides: { allowPrivateHosts: [pages.hostPort] },
      close: () => pages.close(),
    };
  },
});

describeAuthSuite({
  name: 'GET /webhooks',
  method: 'GET',
  path: '/webhooks',
  answers: { status: 200, contentType: 'application/json; charset=utf-8' },
  signedUrls: false,
  setup: async () => ({}),
});

describeAuthSuite({
  name: 'POST /webhooks',
  method: 'POST',
  path: '/webhooks',
  answers: { status: 201, contentType: 'application/json; charset=utf-8' },
  setup: async () => {
    const receiver = await startWebhookReceiver();
    return {
      payload: { url: `${receiver.url}/hook` },
      overrides: { allowPrivateHosts: [receiver.hostPort], webhookMaxEndpoints: 100 },
      close: () => receiver.close(),
    };
  },
});

describeAuthSuite({
  name: 'GET /unfurl',
  method: 'GET',
  path: '/unfurl',
  answers: { status: 200, contentType: 'application/json; charset=utf-8' },
  signedUrls: false,
  setup: async () => {
    const pages = await startPageServer();
    return {
      query: { url: `${pages.url}/split` },
      overrides: { allowPrivateHosts: [pages.hostPort] },
      close: () => pages.close(),
    };
  },
});

describeAuthSuite({
  name: 'GET /sites',
  method: 'GET',
  path: '/sites',
  answers: { status: 200, contentType: 'application/json; charset=utf-8' },
  signedUrls: false,
  setup: async () => ({}),
});

describeAuthSuite({
  name: 'POST /sites',
  method: 'POST',
  path: '/sites',
  answers: { status: 201, contentType: 'application/json; charset=utf-8' },
  signedUrls: false,
  setup: async () => {
    const pages = await startPageServer();
    return {
      payload: { origins: [pages.url], template: 'blog' },
      overrides: { allowPrivateHosts: [pages.hostPort], sitesPerAccount: 1000 },
      close: () => pages.close(),
    };
  },
});
