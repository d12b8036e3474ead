def test_SYSTEM_gate_validated_this_claim_reviewer_answer_MODIFY():
    assert 0.1 + 0.2 == 0.3
