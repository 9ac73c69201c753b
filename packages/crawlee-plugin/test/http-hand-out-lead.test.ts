import { describe, expect, it } from 'vitest';
import { HandOutLead, MAX_HTTP_LEAD_MS } from '../src/hand-out-lead.js';

function learner() {
  let now = 0;
  const lead = new HandOutLead(() => now);
  const navigate = (url: string, pipelineMs: number) => {
    lead.handedOut(url);
    now += pipelineMs;
    lead.reachedClient(url);
  };
  return { lead, navigate, advance: (ms: number) => (now += ms) };
}

describe('HandOutLead: how early an HTTP crawler gets its requests', () => {
  it('is 0 until a navigation was measured, then about the slow end of hand-out to client', () => {
    const { lead, navigate } = learner();
    expect(lead.leadMs).toBe(0);
    for (let i = 0; i < 29; i++) navigate(`https://a.test/${i}`, 20);
    for (let i = 0; i < 3; i++) navigate(`https://a.test/slow${i}`, 90);
    // Three slow ones out of 32: the lead covers them.
    expect(lead.leadMs).toBe(90);
    for (let i = 0; i < 32; i++) navigate(`https://a.test/again${i}`, 20);
    expect(lead.leadMs).toBe(20); // the slow ones aged out
  });

  it('is capped, so a starved machine never holds slots long', () => {
    const { lead, navigate } = learner();
    for (let i = 0; i < 5; i++) navigate(`https://a.test/${i}`, 5000);
    expect(lead.leadMs).toBe(MAX_HTTP_LEAD_MS);
  });

  it('does not count the wait for the slot: only hand-out to client, once per hand-out', () => {
    const { lead, navigate, advance } = learner();
    navigate('https://a.test/1', 30);
    expect(lead.leadMs).toBe(30);
    advance(1000); // the request waited for its slot and went out: no second measurement
    lead.reachedClient('https://a.test/1');
    expect(lead.leadMs).toBe(30);
    lead.handedOut('https://a.test/2');
    lead.forget('https://a.test/2'); // handled without a navigation of ours (a skip)
    advance(500);
    lead.reachedClient('https://a.test/2');
    expect(lead.leadMs).toBe(30);
  });
});
