import { describe, expect, it } from 'vitest';
import { parseReport, REPORT_ELEMENT_ID, type ReportData, reportHtml } from './report';

// A template shaped like the built one: its inline script (in <head>) may contain anything but
// `</script`, `</body>` included.
const TEMPLATE =
  '<!doctype html><html><head><script type="module">const s = "</body>"; run();</script></head>' +
  '<body><div id="root"></div></body></html>';

/** What the browser gives for the data element: its text, found as the parser finds it. */
function embedded(html: string): string {
  const open = `<script type="application/json" id="${REPORT_ELEMENT_ID}">`;
  const at = html.indexOf(open);
  expect(at).toBeGreaterThan(html.indexOf('</head>'));
  return html.slice(at + open.length, html.indexOf('</script>', at));
}

const bytes = (n: number, seed = 7) => Uint8Array.from({ length: n }, (_, i) => (i * seed + (i >> 5)) & 255);

const REPORT: ReportData = {
  title: 'a.prof vs b.prof',
  created: '2026-11-24T21:30:00.000Z',
  hash: '#mode=diff&zoom=main%1Fwork&q=a%3Cb',
  profiles: [
    { slot: 'main', name: 'a.prof', data: bytes(100_003) },
    { slot: 'base', name: 'b.prof', data: bytes(5, 3) },
  ],
};

describe('HTML report data', () => {
  it('embeds the profiles and the view in the template, and reads them back', () => {
    const html = reportHtml(TEMPLATE, REPORT).join('');
    expect(html.startsWith(TEMPLATE.slice(0, TEMPLATE.lastIndexOf('</body>')))).toBe(true);
    expect(html.endsWith('</body></html>')).toBe(true);
    expect(parseReport(embedded(html))).toEqual(REPORT);
  });

  it('base64 costs a third more than the profile, no more', () => {
    const html = reportHtml(TEMPLATE, REPORT).join('');
    const profiles = REPORT.profiles.reduce((t, p) => t + p.data.length, 0);
    expect(html.length - TEMPLATE.length).toBeLessThan(profiles * (4 / 3) + 400);
  });

  it('names cannot end the element or open a comment', () => {
    const evil: ReportData = {
      ...REPORT,
      title: '</script><script>alert(1)</script><!--',
      profiles: [{ slot: 'main', name: '</SCRIPT x><!-- ', data: bytes(10) }],
    };
    const html = reportHtml(TEMPLATE, evil).join('');
    const text = embedded(html);
    expect(text).not.toMatch(/</);
    expect(parseReport(text)).toEqual(evil);
  });

  it('says what is wrong with damaged data', () => {
    expect(() => parseReport('{"version":1')).toThrow(/not JSON/);
    expect(() => parseReport('{"version":2}')).toThrow(/unknown version/);
    const ok = JSON.parse(embedded(reportHtml(TEMPLATE, REPORT).join(''))) as Record<string, unknown>;
    expect(() => parseReport(JSON.stringify({ ...ok, profiles: [] }))).toThrow(/one profile, or two/);
    const profiles = ok.profiles as Record<string, unknown>[];
    const bad = [{ ...profiles[0], base64: '%%%' }];
    expect(() => parseReport(JSON.stringify({ ...ok, profiles: bad }))).toThrow(/a.prof is damaged/);
  });

  it('refuses a template that is no page', () => {
    expect(() => reportHtml('<html>', REPORT)).toThrow(/not a Flamelens page/);
  });
});
