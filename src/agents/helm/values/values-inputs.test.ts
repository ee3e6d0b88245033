import { describe, expect, it } from 'vitest';
import { mergeUserValues, parseValuesFile, setFileKeyPath, userValuesOf, valueInputDigests } from './values-inputs.ts';

describe('values files and --set-file inputs', () => {
  it('merges like Helm: files in order, then inline values, then --set-file; maps deeply, nulls kept', () => {
    const values = userValuesOf({
      valuesFiles: [
        { name: 'base.yaml', content: 'image:\n  repository: nginx\n  tag: "1.0"\nports: [80, 443]\n' },
        { name: 'prod.yaml', content: 'image:\n  tag: "2.0"\n  pullPolicy: null\nports: [8080]\n' },
      ],
      values: { replicaCount: 3, image: { tag: '2.1' } },
      setFiles: [{ key: 'config.nginx\\.conf', name: 'nginx.conf', content: 'worker_processes 1;\n' }],
    });
    expect(values).toEqual({
      image: { repository: 'nginx', tag: '2.1', pullPolicy: null },
      ports: [8080],
      replicaCount: 3,
      config: { 'nginx.conf': 'worker_processes 1;\n' },
    });
    expect(mergeUserValues({ a: 'text' }, { a: { b: 1 } })).toEqual({ a: { b: 1 } });
  });

  it('reads a values file as sigs.k8s.io/yaml does: YAML 1.1 booleans and octals, merge keys, timestamps as text', () => {
    expect(
      parseValuesFile({
        name: 'v.yaml',
        content: 'a: yes\nb: on\nmode: 0755\nday: 2026-11-27\nbase: &b {x: 1}\nmore:\n  <<: *b\n  z: 2\n',
      }),
    ).toEqual({
      a: true,
      b: true,
      mode: 493,
      day: '2026-11-27',
      base: { x: 1 },
      more: { x: 1, z: 2 },
    });
    expect(parseValuesFile({ name: 'empty.yaml', content: '' })).toEqual({});
  });

  it('refuses what Helm refuses or opsgate does not take, naming the input', () => {
    expect(() => parseValuesFile({ name: 'list.yaml', content: '- a\n- b\n' })).toThrow(/list\.yaml.*not a mapping/);
    expect(() => parseValuesFile({ name: 'dup.yaml', content: 'a: 1\na: 2\n' })).toThrow(/dup\.yaml/);
    expect(() => setFileKeyPath('items[0]')).toThrow(/put lists in a values file/);
    expect(() => setFileKeyPath('a..b')).toThrow(/empty segment/);
    expect(setFileKeyPath('a.b\\.c')).toEqual(['a', 'b.c']);
  });

  it('the plan shows each input by name and digest, never its text', () => {
    const digests = valueInputDigests({ valuesFiles: [{ name: 'prod.yaml', content: 'password: s3cret\n' }] });
    expect(digests).toEqual({ valuesFiles: [{ name: 'prod.yaml', digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) }] });
    expect(JSON.stringify(digests)).not.toContain('s3cret');
    expect(valueInputDigests({})).toEqual({});
  });
});
