"""tute_env: Tute, the Spanish trick-taking card game, for reinforcement learning."""
