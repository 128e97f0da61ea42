import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, PersistentVolumeClaim, Service } from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { roleSettings } from '../../src/roles/settings.js';
import { loadConfig } from '../../src/settings.js';

// Issue 31 §2: deploy/kubernetes/ validated offline against the Kubernetes API schemas (the
// kubernetes-models packages; `kubectl --dry-run` needs an API server), and checked for the
// things a schema cannot see: selectors that match, roles, grace periods, the metrics scaled on.
const dir = path.resolve(import.meta.dirname, '../../deploy/kubernetes');

// biome-ignore lint/suspicious/noExplicitAny: manifests are plain parsed YAML
type Doc = Record<string, any>;
/** The model of each kind (their constructors take the typed document; a parsed one is checked by validate()). */
const MODELS: Record<string, new (doc: never) => { validate(): void }> = {
  'apps/v1 Deployment': Deployment,
  'v1 Service': Service,
  'v1 ConfigMap': ConfigMap,
  'v1 PersistentVolumeClaim': PersistentVolumeClaim,
  'policy/v1 PodDisruptionBudget': PodDisruptionBudget,
  'autoscaling/v2 HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'keda.sh/v1alpha1 ScaledObject': ScaledObject,
};

function load(): Array<{ file: string; doc: Doc }> {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .flatMap((file) =>
      parseAllDocuments(readFileSync(path.join(dir, file), 'utf8')).map((d) => {
        if (d.errors.length > 0) throw new Error(`${file}: ${d.errors[0]!.message}`);
        return { file, doc: d.toJSON() as Doc };
      }),
    );
}
const all = load();
const of = (kind: string, name: string) => {
  const found = all.find((m) => m.doc.kind === kind && m.doc.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found.doc;
};
const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);
const envOf = (deployment: Doc) =>
  Object.fromEntries(
    (deployment.spec.template.spec.containers[0].env as Array<{ name: string; value: string }>).map((e) => [
      e.name,
      e.value,
    ]),
  );

describe('deploy/kubernetes', () => {
  it('every manifest is valid against the Kubernetes API schema of its kind', () => {
    expect(all.length).toBeGreaterThanOrEqual(9);
    for (const { file, doc } of all) {
      const Model = MODELS[`${doc.apiVersion} ${doc.kind}`];
      expect(Model, `${file}: ${doc.apiVersion} ${doc.kind} has no model here`).toBeDefined();
      expect(
        () => new Model!(doc as never).validate(),
        `${file}: ${doc.kind} ${doc.metadata?.name}`,
      ).not.toThrow();
    }
  });

  it('the validation catches a broken manifest (so the test above can fail)', () => {
    const broken = structuredClone(of('Deployment', 'cardshot-worker'));
    broken.spec.replicas = 'two';
    expect(() => new Deployment(broken as never).validate()).toThrow(/replicas/);
    const noTarget = structuredClone(of('ScaledObject', 'cardshot-worker'));
    delete noTarget.spec.scaleTargetRef;
    expect(() => new ScaledObject(noTarget as never).validate()).toThrow(/scaleTargetRef/);
  });

  it('an api and a worker Deployment with their roles, Services and disruption budgets that select them', () => {
    for (const role of ['api', 'worker'] as const) {
      const deployment = of('Deployment', `cardshot-${role}`);
      const labels = deployment.spec.template.metadata.labels;
      expect(matches(deployment.spec.selector.matchLabels, labels)).toBe(true);
      expect(envOf(deployment).CARDSHOT_ROLE).toBe(role);
      expect(roleSettings.role.values).toContain(role);
      expect(matches(of('Service', `cardshot-${role}`).spec.selector, labels)).toBe(true);
      expect(matches(of('PodDisruptionBudget', `cardshot-${role}`).spec.selector.matchLabels, labels)).toBe(
        true,
      );
      // The other role's selectors do not take these pods.
      const other = role === 'api' ? 'worker' : 'api';
      expect(matches(of('Service', `cardshot-${other}`).spec.selector, labels)).toBe(false);
      // Kubernetes waits longer than Cardshot's own grace period, so Cardshot ends its stop itself.
      const grace = Number(of('ConfigMap', 'cardshot-config').data.CARDSHOT_SHUTDOWN_GRACE_MS);
      expect(deployment.spec.template.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(grace);
      // The probes Cardshot serves on both roles.
      const container = deployment.spec.template.spec.containers[0];
      expect(container.readinessProbe.httpGet.path).toBe('/readyz');
      expect(container.livenessProbe.httpGet.path).toBe('/healthz');
    }
  });

  it('the shared settings load as Cardshot settings, with the role each Deployment sets', () => {
    const data = of('ConfigMap', 'cardshot-config').data as Record<string, string>;
    for (const role of ['api', 'worker']) {
      const env = {
        ...data,
        ...envOf(of('Deployment', `cardshot-${role}`)),
        DATABASE_URL: 'postgres://x@db/x',
      };
      const config = loadConfig({}, env);
      expect(config.role).toBe(role);
      expect(config.jobsResultsDir).toBe('/results');
    }
  });

  it('both autoscalers scale the worker Deployment on the backlog metrics /metrics exports', () => {
    const source = readFileSync(
      path.resolve(import.meta.dirname, '../../src/roles/backlog-metrics.ts'),
      'utf8',
    );
    const keda = of('ScaledObject', 'cardshot-worker');
    expect(keda.spec.scaleTargetRef.name).toBe('cardshot-worker');
    expect(keda.spec.minReplicaCount).toBeGreaterThanOrEqual(1);
    for (const trigger of keda.spec.triggers) {
      const metric = /(cardshot_[a-z_]+)/.exec(trigger.metadata.query)![1]!;
      expect(source).toContain(`name: '${metric}'`);
    }
    const hpa = of('HorizontalPodAutoscaler', 'cardshot-worker');
    expect(hpa.spec.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: 'cardshot-worker',
    });
    expect(source).toContain(`name: '${hpa.spec.metrics[0].external.metric.name}'`);
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(1);
  });
});
